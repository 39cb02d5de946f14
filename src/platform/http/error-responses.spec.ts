import { declareErrorCodes } from '../../kernel/domain-error';
import { errorResponseFor, SERVER_ERROR } from './error-responses';

describe('errorResponseFor', () => {
  const docsUrl = 'https://api.example.com/api/docs';

  it('answers a code its module declared with its status and `{"message"}` by default', () => {
    declareErrorCodes({ SPEC_THING_NOT_FOUND: { status: 404 } });
    expect(errorResponseFor('SPEC_THING_NOT_FOUND', 'Thing not found.', undefined, docsUrl)).toEqual({
      status: 404,
      body: { message: 'Thing not found.' },
    });
  });

  it('builds a declared body from the message, the field errors and the documentation URL', () => {
    expect(errorResponseFor('VALIDATION_FAILED', 'Bad request.', { name: ['Too long.'] }, docsUrl)).toEqual({
      status: 400,
      body: { message: 'Bad request.', errors: { name: ['Too long.'] } },
    });
    expect(errorResponseFor('RATE_LIMITED', '', undefined, docsUrl)).toEqual({
      status: 429,
      body: { message: `Too many requests. See the API documentation at ${docsUrl}.` },
    });
  });

  it('answers a code no module declared as a server error, with no detail', () => {
    expect(errorResponseFor('SPEC_NEVER_DECLARED', 'internal detail', undefined, docsUrl)).toBe(SERVER_ERROR);
  });

  it('refuses a code declared twice', () => {
    declareErrorCodes({ SPEC_ONCE: { status: 409 } });
    expect(() => declareErrorCodes({ SPEC_ONCE: { status: 409 } })).toThrow('declared twice');
  });
});
