import { describe, expect, it } from 'vitest';
import { credentialFromHeaders } from './credential.js';

describe('credential headers', () => {
  it.each([
    [{}, { kind: 'none' }],
    [{ authorization: 'Bearer abc' }, { kind: 'present', value: 'abc' }],
    [{ authorization: 'bearer abc' }, { kind: 'present', value: 'abc' }],
    [{ authorization: 'Bearer  abc ' }, { kind: 'present', value: 'abc' }],
    [{ 'api-key': 'qv_x' }, { kind: 'present', value: 'qv_x' }],
    [{ authorization: 'Basic abc' }, { kind: 'malformed' }],
    [{ authorization: 'Bearer' }, { kind: 'malformed' }],
    [{ authorization: 'Bearer a b' }, { kind: 'malformed' }],
    [{ 'api-key': '' }, { kind: 'malformed' }],
    [{ 'api-key': 'x'.repeat(4097) }, { kind: 'malformed' }],
    // Authorization wins, even when malformed: a request must not pick its most convenient header.
    [{ authorization: 'Basic abc', 'api-key': 'qv_x' }, { kind: 'malformed' }],
  ])('%j -> %j', (headers, expected) => {
    expect(credentialFromHeaders(headers)).toEqual(expected);
  });
});
