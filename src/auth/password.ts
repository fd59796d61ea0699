// Password hashing: scrypt with a per-user random salt, compared in constant time. The cost
// parameters are stored with each hash so they can be raised later without locking anyone out.
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

export interface PasswordHash {
  algorithm: 'scrypt';
  /** CPU/memory cost (N), block size (r), parallelisation (p). */
  cost: number;
  block_size: number;
  parallelization: number;
  salt: string; // base64
  hash: string; // base64
}

/** N = 2^14, r = 8: 16 MiB and tens of milliseconds per attempt, off the JS thread. */
const defaultParameters = { cost: 16_384, block_size: 8, parallelization: 1 };
const keyLengthBytes = 64;
const saltLengthBytes = 16;

function derive(password: string, salt: Buffer, parameters: typeof defaultParameters): Promise<Buffer> {
  const options: ScryptOptions = {
    N: parameters.cost,
    r: parameters.block_size,
    p: parameters.parallelization,
    // scrypt needs 128 * N * r bytes; leave headroom above that instead of Node's 32 MiB default.
    maxmem: 256 * parameters.cost * parameters.block_size,
  };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, keyLengthBytes, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

export async function hashPassword(password: string): Promise<PasswordHash> {
  const salt = randomBytes(saltLengthBytes);
  const key = await derive(password, salt, defaultParameters);
  return { algorithm: 'scrypt', ...defaultParameters, salt: salt.toString('base64'), hash: key.toString('base64') };
}

export async function verifyPassword(password: string, stored: PasswordHash): Promise<boolean> {
  const expected = Buffer.from(stored.hash, 'base64');
  const key = await derive(password, Buffer.from(stored.salt, 'base64'), stored);
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/**
 * A hash of a random password, checked when the user name is wrong so that a failed login takes
 * as long whether or not the name exists.
 */
let decoy: Promise<PasswordHash> | undefined;
export function decoyHash(): Promise<PasswordHash> {
  decoy ??= hashPassword(randomBytes(24).toString('base64'));
  return decoy;
}
