// One gRPC call with raw request bytes over node:http2, for messages no client would build.
import { connect } from 'node:http2';

export interface RawAnswer {
  status: number | undefined;
  message: string;
}

/** Sends `payload` as the one length-prefixed message of a unary call to `path`. */
export async function rawUnaryCall(port: number, path: string, payload: Uint8Array): Promise<RawAnswer> {
  const session = connect(`http://127.0.0.1:${port}`);
  try {
    return await new Promise<RawAnswer>((resolve, reject) => {
      const stream = session.request({ ':method': 'POST', ':path': path, 'content-type': 'application/grpc', te: 'trailers' });
      const frame = Buffer.alloc(5 + payload.length);
      frame.writeUInt8(0, 0);
      frame.writeUInt32BE(payload.length, 1);
      Buffer.from(payload).copy(frame, 5);
      let headers: Record<string, unknown> = {};
      stream.on('response', (received) => {
        headers = received;
      });
      stream.on('trailers', (trailers) => {
        headers = { ...headers, ...trailers };
      });
      stream.on('data', () => undefined);
      stream.on('error', reject);
      stream.on('close', () => {
        const status = headers['grpc-status'];
        resolve({ status: status === undefined ? undefined : Number(status), message: decodeURIComponent(String(headers['grpc-message'] ?? '')) });
      });
      stream.end(frame);
    });
  } finally {
    session.close();
  }
}
