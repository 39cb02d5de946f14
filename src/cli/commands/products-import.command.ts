import { readFile } from 'node:fs/promises';
import { Command, CommandRunner } from 'nest-commander';
import { toAdminProductResponse } from '../../products/dto/product.response';
import { CreateProductDto } from '../../products/dto/product.dto';
import { ProductsService } from '../../products/products.service';
import { cliActor } from '../cli-actor';
import { CliInputError, printResult, validateOptions } from '../cli-input';

/** The file: a JSON array of products, `[{"name": "POS terminal", "variations": [{"name": "Black"}]}, ...]`. */
@Command({
  name: 'products:import',
  arguments: '<file>',
  description: 'Create the products of a JSON file ([{name, variations: [{name}]}]), all or none.',
})
export class ProductsImportCommand extends CommandRunner {
  constructor(private readonly products: ProductsService) {
    super();
  }

  async run([file]: string[]): Promise<void> {
    let parsed: unknown;
    try {
      parsed = JSON.parse(await readFile(file, 'utf8'));
    } catch (error) {
      throw new CliInputError(`${file}: not a readable JSON file (${(error as Error).message}).`);
    }
    if (!Array.isArray(parsed)) throw new CliInputError(`${file}: expected a JSON array of products.`);
    const inputs = parsed.map((entry: unknown, index) => {
      try {
        return validateOptions(
          CreateProductDto,
          typeof entry === 'object' && entry !== null ? (entry as Record<string, unknown>) : {},
        );
      } catch (error) {
        throw new CliInputError(`${file}: product ${index}: ${(error as Error).message}`);
      }
    });
    const created = await this.products.import(cliActor(), inputs);
    printResult({ imported: created.length, products: created.map(toAdminProductResponse) });
  }
}
