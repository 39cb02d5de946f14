import { formatApiDateTime, parseApiDateTime } from './datetime';

describe('API datetimes', () => {
  it('reads a date alone as midnight in the service time zone', () => {
    expect(parseApiDateTime('2024-03-01', 'UTC')?.toISOString()).toBe('2024-03-01T00:00:00.000Z');
    expect(parseApiDateTime('2024-03-01', 'Europe/Bratislava')?.toISOString()).toBe(
      '2024-02-29T23:00:00.000Z',
    );
  });

  it('reads minutes and seconds precision', () => {
    expect(parseApiDateTime('2024-03-01T10:15', 'UTC')?.toISOString()).toBe('2024-03-01T10:15:00.000Z');
    expect(parseApiDateTime('2024-03-01T10:15:42', 'UTC')?.toISOString()).toBe('2024-03-01T10:15:42.000Z');
  });

  it.each([
    '2024-02-30',
    '2023-02-29',
    '2024-13-01',
    '2024-03-01T24:00',
    '2024-03-01T10:60',
    '2024-03-01 10:15',
    '2024-03-01T10:15:00Z',
    '2024-03-01T10:15:00+01:00',
    '2024-3-1',
    'yesterday',
    '',
  ])('refuses %p', (value) => {
    expect(parseApiDateTime(value, 'UTC')).toBeNull();
  });

  it('accepts 29 February of a leap year', () => {
    expect(parseApiDateTime('2024-02-29', 'UTC')).not.toBeNull();
  });

  it('writes minutes without seconds in the service time zone', () => {
    const moment = new Date('2024-07-01T08:30:59.999Z');
    expect(formatApiDateTime(moment, 'UTC')).toBe('2024-07-01T08:30');
    expect(formatApiDateTime(moment, 'Europe/Bratislava')).toBe('2024-07-01T10:30');
    expect(formatApiDateTime(null, 'UTC')).toBeNull();
  });
});
