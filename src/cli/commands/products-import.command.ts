import { readFile } from 'node:fs/promises';
import { Command, CommandRunner } from 'nest-commander';
import { toAdminProductResponse } from '../../products/dto/product.response';
import { CreateProductDto } from '../../products/dto/product.dto';
import { ProductsService } from '../../products/products.service';
import { cliActor } from '../cli-actor';
import { CliInputError, printResult, validateOptions, warn } from '../cli-input';

/** The file: a JSON array of products, `[{"name": "POS terminal", "variations": [{"name": "Black"}]}, ...]`. */
@Command({
  name: 'products:import',
  arguments: '<file>',
  description:
    'Create the products of a JSON file ([{name, variations: [{name}]}]), all or none. Names need not be unique (as in the admin API): a name already taken is created again, with a warning on stderr.',
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
        throw new CliInputError(`${file}: product ${index + 1}: ${(error as Error).message}`);
      }
    });
    const namesakes = await this.products.named(inputs.map((input) => input.name));
    const created = await this.products.import(cliActor(), inputs);
    if (namesakes.length > 0)
      warn(
        `products with these names already exist, and were created again: ${namesakes.map((namesake) => `"${namesake.name}" (id ${namesake.id})`).join(', ')}.`,
      );
    printResult({ imported: created.length, products: created.map(toAdminProductResponse) });
  }
}
