import { Command, CommandRunner, Option } from 'nest-commander';
import { ApiFormats } from '../../platform/formats/api-formats';
import { CompaniesService } from '../../companies/companies.service';
import { CreateCompanyDto } from '../../companies/dto/create-company.dto';
import { toCompanyResponse } from '../../companies/dto/company.response';
import { cliActor } from '../cli-actor';
import { printResult, validateOptions, warn } from '../cli-input';

@Command({
  name: 'companies:create',
  description:
    'Create a partner company. Names need not be unique (as in the admin API): a name already taken is created again, with a warning on stderr.',
})
export class CompaniesCreateCommand extends CommandRunner {
  constructor(
    private readonly companies: CompaniesService,
    private readonly formats: ApiFormats,
  ) {
    super();
  }

  async run(_params: string[], options: { name?: string; site?: string }): Promise<void> {
    const input = validateOptions(CreateCompanyDto, { name: options.name, site: options.site });
    const namesakes = await this.companies.named(input.name);
    const company = await this.companies.create(cliActor(), input);
    if (namesakes.length > 0)
      warn(
        `a company named "${input.name}" already exists (id ${namesakes.map((namesake) => namesake.id).join(', ')}); created another one, id ${company.id}.`,
      );
    printResult(toCompanyResponse(company, this.formats));
  }

  @Option({ flags: '--name <name>', description: 'The company name', required: true })
  parseName(value: string): string {
    return value;
  }

  @Option({ flags: '--site <site>', description: 'Market code, e.g. SK', required: true })
  parseSite(value: string): string {
    return value;
  }
}
