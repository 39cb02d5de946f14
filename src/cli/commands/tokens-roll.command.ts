import { Command, CommandRunner, Option } from 'nest-commander';
import { ApiFormats } from '../../platform/formats/api-formats';
import { RollTokenDto } from '../../tokens/dto/roll-token.dto';
import { toTokenResponse } from '../../tokens/dto/token.response';
import { TokensService } from '../../tokens/tokens.service';
import { cliActor } from '../cli-actor';
import { CliInputError, printResult, validateOptions } from '../cli-input';

@Command({
  name: 'tokens:roll',
  description:
    'Give a token a new secret (printed once); the old one works until --previous-expires-at (default 24 h).',
})
export class TokensRollCommand extends CommandRunner {
  constructor(
    private readonly tokens: TokensService,
    private readonly formats: ApiFormats,
  ) {
    super();
  }

  async run(_params: string[], options: { id?: string; previousExpiresAt?: string }): Promise<void> {
    if (!options.id || !/^\d{1,9}$/.test(options.id))
      throw new CliInputError('--id: The id must be a positive integer.');
    const input = validateOptions(RollTokenDto, { previous_expires_at: options.previousExpiresAt });
    const { token, record } = await this.tokens.roll(
      cliActor(),
      Number(options.id),
      input.previous_expires_at ? this.formats.parseDateTime(input.previous_expires_at) : null,
    );
    printResult({ ...toTokenResponse(record, this.formats), token });
  }

  @Option({ flags: '--id <id>', description: 'The token id', required: true })
  parseId(value: string): string {
    return value;
  }

  @Option({
    flags: '--previous-expires-at <datetime>',
    description:
      'Until when the old secret works, at most 7 days ahead (service time zone); a time not after now ends it at once',
  })
  parsePreviousExpiresAt(value: string): string {
    return value;
  }
}
