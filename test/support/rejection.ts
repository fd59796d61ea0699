// What a promise rejected with, for tests that inspect the error itself (its code, its class)
// rather than match its message.
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the promise to reject');
}
