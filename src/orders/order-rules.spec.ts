import { orderRef, orderSite, originalOrderError, textLimits, variationError } from './order-rules';

describe('the site of an order', () => {
  it('is the country in upper case when given, else the company site', () => {
    expect(orderSite('cz', 'SK')).toBe('CZ');
    expect(orderSite(null, 'SK')).toBe('SK');
    expect(orderSite(undefined, 'HU')).toBe('HU');
  });

  it.each(['SK', 'CZ', 'PL'])('limits note and details to 50 characters on %s', (site) => {
    expect(textLimits(site)).toEqual({ note: 50, details: 50 });
  });

  it.each(['HU', 'AT', 'DE'])('allows 255 for note and 65,535 for details on %s', (site) => {
    expect(textLimits(site)).toEqual({ note: 255, details: 65_535 });
  });
});

describe('original orders', () => {
  it('accepts a REGULAR order without one and refuses one with one', () => {
    expect(originalOrderError('REGULAR', undefined)).toBeNull();
    expect(originalOrderError('REGULAR', { orderType: 'REGULAR' })).toMatch(/must be empty/);
  });

  it.each(['EXCHANGE', 'RETURN'] as const)('requires one for %s, of the caller company', (type) => {
    expect(originalOrderError(type, undefined)).toMatch(/required/);
    expect(originalOrderError(type, null)).toBe('The selected original order id is invalid.');
  });

  it('lets an EXCHANGE follow a REGULAR or an EXCHANGE, never a RETURN', () => {
    expect(originalOrderError('EXCHANGE', { orderType: 'REGULAR' })).toBeNull();
    expect(originalOrderError('EXCHANGE', { orderType: 'EXCHANGE' })).toBeNull();
    expect(originalOrderError('EXCHANGE', { orderType: 'RETURN' })).not.toBeNull();
  });

  it('lets a RETURN follow anything but a RETURN', () => {
    expect(originalOrderError('RETURN', { orderType: 'REGULAR' })).toBeNull();
    expect(originalOrderError('RETURN', { orderType: 'EXCHANGE' })).toBeNull();
    expect(originalOrderError('RETURN', { orderType: 'RETURN' })).not.toBeNull();
  });
});

describe('product variations', () => {
  it('requires one of the product variations when it has some', () => {
    expect(variationError([4, 5], null)).toMatch(/required/);
    expect(variationError([4, 5], 5)).toBeNull();
    expect(variationError([4, 5], 6)).toMatch(/not a variation/);
  });

  it('refuses a variation for a product without variations', () => {
    expect(variationError([], null)).toBeNull();
    expect(variationError([], 4)).toMatch(/has no variations/);
  });
});

describe('order_ref', () => {
  it('is the site, a dash and the id padded to 7 digits', () => {
    expect(orderRef('SK', 123)).toBe('SK-0000123');
    expect(orderRef('HU', 12_345_678)).toBe('HU-12345678');
  });
});
