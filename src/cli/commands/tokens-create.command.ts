import { Command, CommandRunner, Option } from 'nest-commander';
import { ApiFormats } from '../../platform/formats/api-formats';
import { CreateTokenDto } from '../../tokens/dto/create-token.dto';
import { toTokenResponse } from '../../tokens/dto/token.response';
import { TokensService } from '../../tokens/tokens.service';
import { cliActor } from '../cli-actor';
import { printResult, validateOptions } from '../cli-input';

interface TokensCreateOptions {
  role?: string;
  userName?: string;
  companyId?: string;
  expiresAt?: string;
  readOnly?: boolean;
}

@Command({ name: 'tokens:create', description: 'Issue an API token; prints it once.' })
export class TokensCreateCommand extends CommandRunner {
  constructor(
    private readonly tokens: TokensService,
    private readonly formats: ApiFormats,
  ) {
    super();
  }

  async run(_params: string[], options: TokensCreateOptions): Promise<void> {
    const input = validateOptions(CreateTokenDto, {
      role: options.role,
      user_name: options.userName,
      company_id: options.companyId,
      expires_at: options.expiresAt,
      read_only: options.readOnly,
    });
    const { token, record } = await this.tokens.issue(cliActor(), {
      role: input.role,
      userName: input.user_name,
      companyId: input.company_id,
      expiresAt: input.expires_at ? this.formats.parseDateTime(input.expires_at) : null,
      readOnly: input.read_only ?? false,
    });
    printResult({ ...toTokenResponse(record, this.formats), token });
  }

  @Option({ flags: '--role <role>', description: 'partner, admin or logistics', required: true })
  parseRole(value: string): string {
    return value;
  }

  @Option({ flags: '--user-name <name>', description: 'The person the token is issued to', required: true })
  parseUserName(value: string): string {
    return value;
  }

  @Option({ flags: '--company-id <id>', description: 'The company of a partner token' })
  parseCompanyId(value: string): string {
    return value;
  }

  @Option({
    flags: '--expires-at <datetime>',
    description: 'YYYY-MM-DD[THH:MM[:SS]] in the service time zone',
  })
  parseExpiresAt(value: string): string {
    return value;
  }

  @Option({
    flags: '--read-only',
    description: 'A partner token that reads but never writes (every write: 403)',
  })
  parseReadOnly(): boolean {
    return true;
  }
}
