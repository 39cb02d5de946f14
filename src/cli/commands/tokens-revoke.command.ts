import { Command, CommandRunner, Option } from 'nest-commander';
import { ApiFormats } from '../../platform/formats/api-formats';
import { toTokenResponse } from '../../tokens/dto/token.response';
import { TokensService } from '../../tokens/tokens.service';
import { cliActor } from '../cli-actor';
import { CliInputError, printResult } from '../cli-input';

@Command({ name: 'tokens:revoke', description: 'Revoke an API token: its next request gets 401.' })
export class TokensRevokeCommand extends CommandRunner {
  constructor(
    private readonly tokens: TokensService,
    private readonly formats: ApiFormats,
  ) {
    super();
  }

  async run(_params: string[], options: { id?: string }): Promise<void> {
    if (!options.id || !/^\d{1,9}$/.test(options.id))
      throw new CliInputError('--id: The id must be a positive integer.');
    printResult(toTokenResponse(await this.tokens.revoke(cliActor(), Number(options.id)), this.formats));
  }

  @Option({ flags: '--id <id>', description: 'The token id', required: true })
  parseId(value: string): string {
    return value;
  }
}
