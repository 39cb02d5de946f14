import { Command, CommandRunner, Option } from 'nest-commander';
import { ApiFormats } from '../../common/api-formats';
import { CompaniesService } from '../../companies/companies.service';
import { CreateCompanyDto } from '../../companies/dto/create-company.dto';
import { toCompanyResponse } from '../../companies/dto/company.response';
import { cliActor } from '../cli-actor';
import { printResult, validateOptions } from '../cli-input';

@Command({ name: 'companies:create', description: 'Create a partner company.' })
export class CompaniesCreateCommand extends CommandRunner {
  constructor(
    private readonly companies: CompaniesService,
    private readonly formats: ApiFormats,
  ) {
    super();
  }

  async run(_params: string[], options: { name?: string; site?: string }): Promise<void> {
    const input = validateOptions(CreateCompanyDto, { name: options.name, site: options.site });
    printResult(toCompanyResponse(await this.companies.create(cliActor(), input), this.formats));
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
