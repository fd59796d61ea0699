// The contract's success envelope (docs/api.md §1.1). `result` must never be undefined: the Qdrant
// JS client rejects a response without it.
import type { FastifyReply } from 'fastify';

export interface SuccessEnvelope<Result> {
  usage: { hardware: null };
  time: number;
  status: 'ok';
  result: Result;
}

export function success<Result>(reply: FastifyReply, result: Result): SuccessEnvelope<Result> {
  return { usage: { hardware: null }, time: reply.elapsedTime / 1000, status: 'ok', result };
}

export interface ErrorEnvelope {
  time: number;
  status: { error: string };
}

export interface AuthErrorEnvelope {
  status: 'error';
  message: string;
}
