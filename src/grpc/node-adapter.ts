// Connect's router served to node:http2, as connectNodeAdapter does, with one change: a request
// message that does not parse (bytes that are not the method's protobuf message, a field of the
// wrong wire type) answers INVALID_ARGUMENT, as a malformed REST body is a 400 (docs/api.md §14).
// Connect itself reports such bytes as INTERNAL, which would read as a server fault.
import type { Http2ServerRequest, Http2ServerResponse } from 'node:http2';
import { Code, createConnectRouter, type ConnectRouter, type ConnectRouterOptions } from '@connectrpc/connect';
import { universalRequestFromNodeRequest, universalResponseToNodeResponse } from '@connectrpc/connect-node';
import type { UniversalServerResponse } from '@connectrpc/connect/protocol';

const parseFailurePrefix = 'parse binary: ';

/** Rewrites the trailer of a failed parse: INTERNAL "parse binary: ..." -> INVALID_ARGUMENT. */
function correctParseFailure(trailer: Headers | undefined): void {
  if (!trailer || trailer.get('grpc-status') !== String(Code.Internal)) return;
  const message = decodeURIComponent(trailer.get('grpc-message') ?? '');
  if (!message.startsWith(parseFailurePrefix)) return;
  trailer.set('grpc-status', String(Code.InvalidArgument));
  trailer.set('grpc-message', encodeURIComponent(`Format error in protobuf message: ${message.slice(parseFailurePrefix.length)}`));
}

function withCorrectedTrailer(response: UniversalServerResponse): UniversalServerResponse {
  correctParseFailure(response.trailer);
  const body = response.body;
  if (!body || !(Symbol.asyncIterator in body)) return response;
  async function* corrected(source: AsyncIterable<Uint8Array>) {
    yield* source;
    correctParseFailure(response.trailer);
  }
  return { ...response, body: corrected(body) };
}

export function grpcNodeHandler(options: ConnectRouterOptions & { routes: (router: ConnectRouter) => void; onFailure: (error: unknown) => void }) {
  const router = createConnectRouter(options);
  options.routes(router);
  const handlers = new Map(router.handlers.map((handler) => [handler.requestPath, handler]));
  return (request: Http2ServerRequest, response: Http2ServerResponse): void => {
    const handler = handlers.get(request.url.split('?', 2)[0] ?? '');
    if (!handler) {
      // Not a method of ours: a trailers-only gRPC answer, as gRPC servers give.
      response.writeHead(200, {
        'content-type': 'application/grpc',
        'grpc-status': String(Code.Unimplemented),
        'grpc-message': encodeURIComponent(`unknown method ${request.url}`),
      });
      response.end();
      return;
    }
    const universalRequest = universalRequestFromNodeRequest(request, response, undefined, undefined);
    handler(universalRequest)
      .then((universalResponse) => universalResponseToNodeResponse(withCorrectedTrailer(universalResponse), response))
      .catch(options.onFailure);
  };
}
