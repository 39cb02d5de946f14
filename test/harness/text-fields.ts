import { fromDist } from './app';

/** The rules of the text kit (RequiredText, OptionalText): a text field with no rule of its own. */
const TEXT_RULES = new Set([
  'isDefined',
  'isOptional',
  'isString',
  'storableText',
  'matches',
  'maxCharacters',
]);

/**
 * The fields of a request DTO that take any text, each with the most characters it takes, read from the
 * compiled DTO's validation rules (so a field added there is in it): a field with a rule of its own (an email's
 * format, a link, a pattern) is left out. `dto` names a class of dist/orders/http/dto.
 */
export function plainTextFields(
  dto: 'place-order.dto:PlaceOrderDto' | 'logistics.dto:LogisticsPatchDto',
): Map<string, number> {
  const [file, name] = dto.split(':');
  const type = fromDist<Record<string, Function>>(`orders/http/dto/${file}`)[name];
  const { getMetadataStorage } = globalThis.nativeRequire(
    'class-validator',
  ) as typeof import('class-validator');
  const rules = new Map<string, { names: string[]; max?: number }>();
  for (const rule of getMetadataStorage().getTargetValidationMetadatas(type, '', true, false)) {
    const field = rules.get(rule.propertyName) ?? { names: [] };
    field.names.push(rule.name ?? rule.type);
    if (rule.name === 'maxCharacters') field.max = (rule.constraints as number[])[0];
    rules.set(rule.propertyName, field);
  }
  return new Map(
    [...rules].flatMap(([field, { names, max }]) =>
      max !== undefined && names.every((rule) => TEXT_RULES.has(rule)) ? [[field, max]] : [],
    ),
  );
}

/**
 * The placement fields an order of an SK company takes 255 characters of: plain text of at most 255, but the
 * fields the site rule shortens there (`note`, `details`, from textLimits).
 */
export function placementTextOf255(): string[] {
  const { textLimits } = fromDist<typeof import('../../src/orders/order-rules')>('orders/order-rules');
  const siteLimited = Object.keys(textLimits('SK'));
  return [...plainTextFields('place-order.dto:PlaceOrderDto')]
    .filter(([field, max]) => max === 255 && !siteLimited.includes(field))
    .map(([field]) => field);
}
