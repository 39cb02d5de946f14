import { hasMalformedPath } from './request-path';

describe('hasMalformedPath', () => {
  it('finds a percent-encoding that does not decode, in any segment', () => {
    expect(hasMalformedPath('/api/v2/%E0%A4%A')).toBe(true);
    expect(hasMalformedPath('/api/v2/order/%ZZ/comments')).toBe(true);
    expect(hasMalformedPath('/api/v2/%C3')).toBe(true);
  });

  it('accepts plain and well-encoded paths, and leaves the query string to its parser', () => {
    expect(hasMalformedPath('/api/v2/order/1')).toBe(false);
    expect(hasMalformedPath('/api/v2/product/caf%C3%A9%2F1')).toBe(false);
    expect(hasMalformedPath('/api/v2/orders?search=%E0%A4%A')).toBe(false);
  });
});
