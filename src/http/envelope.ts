// The contract's success envelope (docs/api.md §1.1). `result` must never be undefined: the Qdrant
// JS client rejects a response without it.
import type { FastifyReply } from 'fastify';
import { keepForExchange } from './in-process-exchange.js';

export interface SuccessEnvelope<Result> {
  usage: { hardware: null };
  time: number;
  status: 'ok';
  result: Result;
}

export function success<Result>(reply: FastifyReply, result: Result): SuccessEnvelope<Result> {
  const envelope: SuccessEnvelope<Result> = { usage: { hardware: null }, time: reply.elapsedTime / 1000, status: 'ok', result };
  // An in-process caller (the gRPC door) takes the envelope as values, not as JSON text.
  keepForExchange(reply, envelope);
  return envelope;
}

export interface ErrorEnvelope {
  time: number;
  status: { error: string };
}

export interface AuthErrorEnvelope {
  status: 'error';
  message: string;
}
