import { foldArrayStyleParameters, repeatedParameters } from './query-parameters';

describe('foldArrayStyleParameters', () => {
  it('gives array-style parameters their own name, as the list of values a repeated parameter is', () => {
    expect(foldArrayStyleParameters({ 'order_id[]': '1' })).toEqual({ order_id: ['1'] });
    expect(foldArrayStyleParameters({ 'state[0]': 'PLACED', 'state[1]': 'TEST' })).toEqual({
      state: ['PLACED', 'TEST'],
    });
    expect(foldArrayStyleParameters({ 'after[x]': 'evt_1', after: 'evt_2' })).toEqual({
      after: ['evt_1', 'evt_2'],
    });
    expect(foldArrayStyleParameters({ 'company_id[]': ['1', '2'] })).toEqual({ company_id: ['1', '2'] });
  });

  it('leaves plain parameters as they are', () => {
    expect(foldArrayStyleParameters({ page: '2', order_id: '7' })).toEqual({ page: '2', order_id: '7' });
  });
});

describe('repeatedParameters', () => {
  it('names every parameter given more than once (or array-style), with one message', () => {
    expect(repeatedParameters({ company_id: ['1', '2'], page: '1', order_ref: ['SK-1'] })).toEqual({
      company_id: ['The company id must be given once, as a single value.'],
      order_ref: ['The order ref must be given once, as a single value.'],
    });
    expect(repeatedParameters({ page: '2' })).toEqual({});
  });
});
