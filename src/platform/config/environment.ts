import { plainToInstance, Transform } from 'class-transformer';
import {
  IsArray,
  IsBoolean,
  IsDefined,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  Min,
  validateSync,
  ValidateIf,
  ValidatorConstraint,
  type ValidatorConstraintInterface,
  Validate,
  type ValidationArguments,
} from 'class-validator';
import { IANAZone } from 'luxon';
import { toBoolean as toBool, toInteger as toInt } from '../../kernel/transforms';
import { StartupError } from './startup-error';

/** No statement may hold a connection longer than this (OWASP API4: bounded resource use), then 503. */
export const DEFAULT_STATEMENT_TIMEOUT_MS = 10_000;

/** SERVICE_ROLE's values (CONTRACT §9: workers apart); what each runs is service-role.ts's. */
export const SERVICE_ROLES = ['all', 'api', 'worker'] as const;
export type ServiceRole = (typeof SERVICE_ROLES)[number];

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Thrown when the environment does not validate; its message is one line per bad variable. */
export class InvalidEnvironmentError extends StartupError {
  override name = 'InvalidEnvironmentError';
}

@ValidatorConstraint({ name: 'ianaZone' })
class IanaZone implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return typeof value === 'string' && IANAZone.isValidZone(value);
  }
  defaultMessage(): string {
    return 'must be an IANA time zone such as UTC or Europe/Bratislava';
  }
}

/** A URL the drivers can parse (a port that is a number, say), with one of the given schemes. */
@ValidatorConstraint({ name: 'urlOfScheme' })
class UrlOfScheme implements ValidatorConstraintInterface {
  validate(value: unknown, args: ValidationArguments): boolean {
    const [protocols] = args.constraints as [string[]];
    try {
      return typeof value === 'string' && protocols.includes(new URL(value).protocol);
    } catch {
      return false;
    }
  }
}

/** DATABASE_DIRECT_URL only makes sense beside a DATABASE_URL (the pooler it bypasses). */
@ValidatorConstraint({ name: 'besideDatabaseUrl' })
class BesideDatabaseUrl implements ValidatorConstraintInterface {
  validate(_value: unknown, args: ValidationArguments): boolean {
    return (args.object as Environment).DATABASE_URL !== undefined;
  }
  defaultMessage(): string {
    return 'needs DATABASE_URL (the pooler it bypasses): unset it, or set DATABASE_URL too';
  }
}

/** WEBHOOK_DISPATCHER (deprecated) may only repeat what SERVICE_ROLE says: never the contrary. */
@ValidatorConstraint({ name: 'agreesWithServiceRole' })
class AgreesWithServiceRole implements ValidatorConstraintInterface {
  validate(value: unknown, args: ValidationArguments): boolean {
    const role = (args.object as Environment).SERVICE_ROLE;
    return !((role === 'api' && value === true) || (role === 'worker' && value === false));
  }
  defaultMessage(args: ValidationArguments): string {
    return (args.object as Environment).SERVICE_ROLE === 'api'
      ? 'is deprecated and contradicts SERVICE_ROLE=api, which never runs the dispatcher: unset it'
      : 'is deprecated and contradicts SERVICE_ROLE=worker, whose work is the dispatcher: unset it';
  }
}

const KEY_FORMAT = '32 random bytes as 64 hex digits or 44 base64 characters (openssl rand -hex 32)';

const emptyToUndefined = ({ value }: { value: unknown }) => (value === '' ? undefined : value);

/**
 * Every variable of CONTRACT §8, with its default. Read once at start; nothing else reads process.env.
 */
export class Environment {
  @Transform(toInt)
  @IsInt({ message: 'must be an integer from 0 to 65535' })
  @Min(0, { message: 'must be an integer from 0 to 65535' })
  @Max(65535, { message: 'must be an integer from 0 to 65535' })
  PORT = 3000;

  /** Prometheus metrics on their own port (never the public one); 0 turns them off. */
  @Transform(toInt)
  @IsInt({ message: 'must be an integer from 0 to 65535 (0: metrics off)' })
  @Min(0, { message: 'must be an integer from 0 to 65535 (0: metrics off)' })
  @Max(65535, { message: 'must be an integer from 0 to 65535 (0: metrics off)' })
  METRICS_PORT = 9464;

  /** Unset: the embedded PostgreSQL in ./.data, a development convenience production never falls back on. */
  @Transform(emptyToUndefined)
  @ValidateIf((env: Environment) => env.NODE_ENV === 'production' || env.DATABASE_URL !== undefined)
  @IsDefined({
    message:
      'is required when NODE_ENV=production (the embedded database is for development only): set it to your PostgreSQL',
  })
  @Matches(/^postgres(ql)?:\/\/\S+$/, { message: 'must be a postgres:// or postgresql:// URL' })
  @Validate(UrlOfScheme, [['postgres:', 'postgresql:']], {
    message: 'must be a postgres:// or postgresql:// URL',
  })
  DATABASE_URL?: string;

  /**
   * The primary itself, for what needs a session (LISTEN, the migration lock, the export slots' locks) when
   * DATABASE_URL is a transaction-mode pooler. Unset: DATABASE_URL (no pooler).
   */
  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\/\S+$/, { message: 'must be a postgres:// or postgresql:// URL' })
  @Validate(UrlOfScheme, [['postgres:', 'postgresql:']], {
    message: 'must be a postgres:// or postgresql:// URL',
  })
  @Validate(BesideDatabaseUrl)
  DATABASE_DIRECT_URL?: string;

  /**
   * Named prepared statements on DATABASE_URL's connections. Unset: true without DATABASE_DIRECT_URL (no pooler),
   * false with it (PgBouncer before 1.21, or without max_prepared_statements, mixes them up between clients).
   */
  @Transform(({ value }: { value: unknown }) => (value === '' ? undefined : toBool({ value })))
  @IsOptional()
  @IsBoolean({ message: 'must be true, false, 1 or 0' })
  DATABASE_PREPARED_STATEMENTS?: boolean;

  @Transform(toInt)
  @IsInt({ message: 'must be an integer from 2 to 200' })
  @Min(2, { message: 'must be an integer from 2 to 200' })
  @Max(200, { message: 'must be an integer from 2 to 200' })
  DATABASE_POOL_SIZE = 10;

  /**
   * Read replicas (comma-separated) for the reads CONTRACT §9 lists; unset: every read goes to DATABASE_URL.
   * A replica answers only when it has replayed the company's last write.
   */
  @Transform(({ value }: { value: unknown }) =>
    typeof value === 'string' && value.trim() !== '' ? value.split(',').map((url) => url.trim()) : [],
  )
  @IsArray()
  @Matches(/^postgres(ql)?:\/\/\S+$/, {
    each: true,
    message: 'must be postgres:// or postgresql:// URLs, comma-separated',
  })
  @Validate(UrlOfScheme, [['postgres:', 'postgresql:']], {
    each: true,
    message: 'must be postgres:// or postgresql:// URLs, comma-separated',
  })
  DATABASE_REPLICA_URL: string[] = [];

  /** Connections per read replica. */
  @Transform(toInt)
  @IsInt({ message: 'must be an integer from 1 to 200' })
  @Min(1, { message: 'must be an integer from 1 to 200' })
  @Max(200, { message: 'must be an integer from 1 to 200' })
  DATABASE_REPLICA_POOL_SIZE = 5;

  /** The longest a statement may run, and the bound of every other wait on the database (then 503). */
  @Transform(toInt)
  @IsInt({ message: 'must be an integer from 100 to 600000' })
  @Min(100, { message: 'must be an integer from 100 to 600000' })
  @Max(600_000, { message: 'must be an integer from 100 to 600000' })
  DATABASE_STATEMENT_TIMEOUT_MS = DEFAULT_STATEMENT_TIMEOUT_MS;

  /** How long a request's body may take to arrive once its headers have (then 408). */
  @Transform(toInt)
  @IsInt({ message: 'must be an integer from 100 to 300000' })
  @Min(100, { message: 'must be an integer from 100 to 300000' })
  @Max(300_000, { message: 'must be an integer from 100 to 300000' })
  REQUEST_BODY_TIMEOUT_MS = 30_000;

  /** How long an export waits for a client that has stopped reading before it cuts the download off. */
  @Transform(toInt)
  @IsInt({ message: 'must be an integer from 100 to 300000' })
  @Min(100, { message: 'must be an integer from 100 to 300000' })
  @Max(300_000, { message: 'must be an integer from 100 to 300000' })
  EXPORT_STALL_TIMEOUT_MS = 30_000;

  /**
   * How many exports one instance runs at once, every company together (a company has at most 2 of its own,
   * across instances): each one that is read quickly keeps about a core busy.
   */
  @Transform(toInt)
  @IsInt({ message: 'must be an integer from 1 to 100' })
  @Min(1, { message: 'must be an integer from 1 to 100' })
  @Max(100, { message: 'must be an integer from 1 to 100' })
  EXPORTS_PER_INSTANCE = 4;

  /**
   * How long an import worker holds an import without renewing its lease (each batch renews it): past it, a
   * worker of any instance resumes the import where its results stop (CONTRACT §4.11).
   */
  @Transform(toInt)
  @IsInt({ message: 'must be an integer from 1000 to 600000' })
  @Min(1000, { message: 'must be an integer from 1000 to 600000' })
  @Max(600_000, { message: 'must be an integer from 1000 to 600000' })
  IMPORT_LEASE_MS = 30_000;

  /** How often an idle import worker looks for imports to run (an upload to its own instance wakes it at once). */
  @Transform(toInt)
  @IsInt({ message: 'must be an integer from 10 to 60000' })
  @Min(10, { message: 'must be an integer from 10 to 60000' })
  @Max(60_000, { message: 'must be an integer from 10 to 60000' })
  IMPORT_POLL_INTERVAL_MS = 1_000;

  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^rediss?:\/\/\S+$/, { message: 'must be a redis:// or rediss:// URL' })
  @Validate(UrlOfScheme, [['redis:', 'rediss:']], { message: 'must be a redis:// or rediss:// URL' })
  REDIS_URL?: string;

  @Transform(toInt)
  @IsInt({ message: 'must be a positive integer' })
  @Min(1, { message: 'must be a positive integer' })
  RATE_LIMIT_PER_MINUTE = 60;

  @Transform(toInt)
  @IsInt({ message: 'must be a positive integer' })
  @Min(1, { message: 'must be a positive integer' })
  ADMIN_RATE_LIMIT_PER_MINUTE = 600;

  /**
   * The length of the rate-limit window, for tests: a short one shows in seconds what a minute does. The budgets
   * above are per window; Retry-After, never longer than the window, stays within the contract's 60 s.
   */
  @Transform(toInt)
  @IsInt({ message: 'must be an integer from 100 to 60000' })
  @Min(100, { message: 'must be an integer from 100 to 60000' })
  @Max(60_000, { message: 'must be an integer from 100 to 60000' })
  RATE_LIMIT_WINDOW_MS = 60_000;

  @IsString()
  @Validate(IanaZone)
  APP_TIMEZONE = 'UTC';

  @Transform(({ value }: { value: unknown }) =>
    typeof value === 'string' && value !== '' ? value.replace(/\/+$/, '') : undefined,
  )
  @IsOptional()
  @Matches(/^https?:\/\/[^\s/?#]+(\/[^\s?#]*)?$/, {
    message: 'must be an http(s) URL without query or fragment, such as https://api.example.com',
  })
  PUBLIC_BASE_URL?: string;

  /** Anything but `production`, with a terminal on stdout, pretty-prints the logs (pino-pretty). */
  @IsOptional()
  @IsString()
  NODE_ENV?: string;

  @IsIn(LOG_LEVELS, { message: `must be one of ${LOG_LEVELS.join(', ')}` })
  LOG_LEVEL: LogLevel = 'info';

  /** Each request's log line (and each background job iteration's) also carries its statements' text. */
  @Transform(toBool)
  @IsBoolean({ message: 'must be true, false, 1 or 0' })
  LOG_SQL = false;

  @Transform(toBool)
  @IsBoolean({ message: 'must be true, false, 1 or 0' })
  WEBHOOK_ALLOW_PRIVATE = false;

  /**
   * What this instance runs (service-role.ts): `all` the API, the webhook dispatcher and the periodic jobs;
   * `api` the API only; `worker` the dispatcher and the jobs, and of HTTP only the health routes.
   */
  @IsIn(SERVICE_ROLES, { message: `must be one of ${SERVICE_ROLES.join(', ')}` })
  SERVICE_ROLE: ServiceRole = 'all';

  /**
   * Deprecated (SERVICE_ROLE): `false` still turns the dispatcher off, as before; unset, the role decides. Any
   * number of instances may dispatch: deliveries are claimed with SKIP LOCKED.
   */
  @Transform(toBool)
  @IsOptional()
  @IsBoolean({ message: 'must be true, false, 1 or 0' })
  @Validate(AgreesWithServiceRole)
  WEBHOOK_DISPATCHER?: boolean;

  @Transform(toInt)
  @IsInt({ message: 'must be an integer from 1000 to 30000' })
  @Min(1000, { message: 'must be an integer from 1000 to 30000' })
  @Max(30000, { message: 'must be an integer from 1000 to 30000' })
  WEBHOOK_TIMEOUT_MS = 15_000;

  /** The first retry's delay; each next one doubles, with jitter, up to an hour. */
  @Transform(toInt)
  @IsInt({ message: 'must be an integer from 10 to 3600000' })
  @Min(10, { message: 'must be an integer from 10 to 3600000' })
  @Max(3_600_000, { message: 'must be an integer from 10 to 3600000' })
  WEBHOOK_RETRY_BASE_MS = 5_000;

  /**
   * How often an idle dispatcher looks for due deliveries: those of another instance's writes, and retries
   * coming due (a write on the dispatcher's own instance wakes it at once).
   */
  @Transform(toInt)
  @IsInt({ message: 'must be an integer from 10 to 60000' })
  @Min(10, { message: 'must be an integer from 10 to 60000' })
  @Max(60_000, { message: 'must be an integer from 10 to 60000' })
  WEBHOOK_POLL_INTERVAL_MS = 250;

  /** Webhook attempts one dispatcher has in flight at most, every endpoint together. */
  @Transform(toInt)
  @IsInt({ message: 'must be an integer from 1 to 2000' })
  @Min(1, { message: 'must be an integer from 1 to 2000' })
  @Max(2000, { message: 'must be an integer from 1 to 2000' })
  WEBHOOK_CONCURRENCY = 300;

  /**
   * Webhook attempts one dispatcher has in flight at most to one endpoint: a receiver that is slow or hangs holds
   * this many of WEBHOOK_CONCURRENCY, never more.
   */
  @Transform(toInt)
  @IsInt({ message: 'must be an integer from 1 to 100' })
  @Min(1, { message: 'must be an integer from 1 to 100' })
  @Max(100, { message: 'must be an integer from 1 to 100' })
  WEBHOOK_ENDPOINT_CONCURRENCY = 8;

  /** How long finished webhook deliveries and their attempts stay in the delivery log, in days. */
  @Transform(toInt)
  @IsInt({ message: 'must be an integer from 1 to 3650 (days)' })
  @Min(1, { message: 'must be an integer from 1 to 3650 (days)' })
  @Max(3650, { message: 'must be an integer from 1 to 3650 (days)' })
  WEBHOOK_LOG_RETENTION_DAYS = 30;

  /** Whether every request of a company's token is recorded in the request log (CONTRACT §4.12). */
  @Transform(toBool)
  @IsBoolean({ message: 'must be true, false, 1 or 0' })
  REQUEST_LOG = true;

  /** How often an instance writes the requests it buffered to the request log (or sooner, at 1,000 of them). */
  @Transform(toInt)
  @IsInt({ message: 'must be an integer from 10 to 60000' })
  @Min(10, { message: 'must be an integer from 10 to 60000' })
  @Max(60_000, { message: 'must be an integer from 10 to 60000' })
  REQUEST_LOG_FLUSH_MS = 1_000;

  @Transform(toBool)
  @IsBoolean({ message: 'must be true, false, 1 or 0' })
  MIGRATIONS_RUN = true;

  /** Seals device credentials at rest; required with DATABASE_URL (the embedded default keeps one in ./.data). */
  @Transform(emptyToUndefined)
  @ValidateIf(
    (env: Environment) => env.DATABASE_URL !== undefined || env.DEVICE_CREDENTIALS_KEY !== undefined,
  )
  @IsDefined({ message: `is required when DATABASE_URL is set: ${KEY_FORMAT} (keep it with your secrets)` })
  @Matches(/^([0-9a-fA-F]{64}|[A-Za-z0-9+/]{43}=)$/, { message: `must be ${KEY_FORMAT}` })
  DEVICE_CREDENTIALS_KEY?: string;

  /** Browser origins allowed to call the API (CORS); none unless listed. */
  @Transform(({ value }: { value: unknown }) =>
    typeof value === 'string' && value.trim() !== ''
      ? value.split(',').map((origin) => origin.trim().replace(/\/+$/, ''))
      : [],
  )
  @IsArray()
  @Matches(/^https?:\/\/[^\s/?#]+$/, {
    each: true,
    message: 'must be a comma-separated list of origins such as https://app.example.com',
  })
  CORS_ORIGINS: string[] = [];
}

/** Variables whose whole value is a secret: a bad one is described by its length only. */
const SECRET_VARIABLES = new Set(['DEVICE_CREDENTIALS_KEY']);
/** Variables holding a URL, which may carry a password (or a query that does): echoed without them. */
const URL_VARIABLES = new Set([
  'DATABASE_URL',
  'DATABASE_DIRECT_URL',
  'DATABASE_REPLICA_URL',
  'REDIS_URL',
  'PUBLIC_BASE_URL',
]);

/** A URL with its password masked and without query and fragment; nothing of a value that does not parse. */
function withoutCredentials(value: string): string | undefined {
  try {
    const url = new URL(value);
    const user = url.username ? `${url.username}${url.password ? ':***' : ''}@` : '';
    return `${url.protocol}//${user}${url.host}${url.pathname}`;
  } catch {
    return undefined;
  }
}

/** What a bad value was, for the operator's line: never the value of a secret (CONTRACT §8). */
function describeGiven(name: string, given: unknown): string {
  if (given === undefined || given === '') return 'not set';
  if (typeof given !== 'string') return 'set';
  if (SECRET_VARIABLES.has(name)) return `got ${[...given].length} characters, not shown`;
  if (!URL_VARIABLES.has(name)) return `got ${JSON.stringify(given)}`;
  const shown = given.split(',').map((url) => withoutCredentials(url.trim()));
  return shown.includes(undefined)
    ? 'got a value that is not a URL, not shown'
    : `got ${JSON.stringify(shown.join(','))}`;
}

/** Validates the raw environment; throws InvalidEnvironmentError naming each bad variable on its own line. */
export function validateEnvironment(raw: Record<string, unknown>): Environment {
  const known = Object.keys(new Environment()).concat(
    'DATABASE_URL',
    'DATABASE_DIRECT_URL',
    'DATABASE_PREPARED_STATEMENTS',
    'REDIS_URL',
    'PUBLIC_BASE_URL',
    'DEVICE_CREDENTIALS_KEY',
    'NODE_ENV',
    'WEBHOOK_DISPATCHER',
  );
  const relevant = Object.fromEntries(
    Object.entries(raw).filter(([key, value]) => known.includes(key) && value !== undefined),
  );
  const env = plainToInstance(Environment, relevant, { exposeDefaultValues: true });
  const errors = validateSync(env, { skipMissingProperties: false });
  if (errors.length > 0) {
    const lines = errors.map((error) => {
      const message = Object.values(error.constraints ?? {})[0] ?? 'is invalid';
      return `Invalid environment variable ${error.property}: ${message} (${describeGiven(error.property, raw[error.property])}).`;
    });
    throw new InvalidEnvironmentError(lines.join('\n'), errors.map((error) => error.property).join(', '));
  }
  return env;
}
