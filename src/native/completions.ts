// Promises for kernel searches: the TypeScript twin of crates/quiver-node/src/completions.rs,
// tested in completions.test.ts. Each search gets a ticket; the kernel posts (ticket, result)
// through one long-lived completion channel (crates/quiver-node/src/completions.rs) instead
// of creating a thread-safe function per promise, which cost measurable JS-thread time per
// request. While any search is pending the channel holds the event loop open.

/** `error` is the addon's Error, with the kernel code as its `code` (see errors.ts). */
export type Deliver = (ticket: number, result: ArrayBuffer | undefined, error: Error | undefined) => void;

/** The addon's channel (a CompletionChannel instance). */
export interface CompletionChannelHandle {
  hold(hold: boolean): void;
}

interface Settle {
  resolve(result: ArrayBuffer): void;
  reject(error: Error): void;
}

export class Completions {
  readonly channel: CompletionChannelHandle;
  private readonly pending = new Map<number, Settle>();
  private nextTicket = 1;

  constructor(open: (deliver: Deliver) => CompletionChannelHandle) {
    this.channel = open(this.deliver);
  }

  /** Pending searches (for tests and diagnostics). */
  get size(): number {
    return this.pending.size;
  }

  /**
   * A promise for the result of `start(ticket)`, which must hand the ticket to the kernel.
   * If `start` throws (bad arguments, closed index) the promise rejects with that error.
   */
  submit(start: (ticket: number) => void): Promise<ArrayBuffer> {
    // Small integers stay V8 small-integer map keys; a wrap after 2^31 tickets is harmless
    // since far fewer are ever pending at once.
    const ticket = this.nextTicket;
    this.nextTicket = this.nextTicket >= 0x3fff_ffff ? 1 : this.nextTicket + 1;
    return new Promise<ArrayBuffer>((resolve, reject) => {
      this.pending.set(ticket, { resolve, reject });
      if (this.pending.size === 1) this.channel.hold(true);
      try {
        start(ticket);
      } catch (error) {
        this.forget(ticket);
        reject(error);
      }
    });
  }

  private forget(ticket: number): Settle | undefined {
    const settle = this.pending.get(ticket);
    if (settle === undefined) return undefined;
    this.pending.delete(ticket);
    if (this.pending.size === 0) this.channel.hold(false);
    return settle;
  }

  private readonly deliver: Deliver = (ticket, result, error) => {
    const settle = this.forget(ticket);
    if (settle === undefined) return;
    if (error !== undefined) settle.reject(error);
    else settle.resolve(result ?? new ArrayBuffer(0));
  };
}
