// The auth-management endpoints (docs/api.md §7, §7.3). All but admin-exists speak the auth
// envelope `{status, message}`; handlers only translate between HTTP and the AuthService.
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AuthService } from '../auth/service.js';
import { isQuiverError } from '../errors.js';
import { success } from './envelope.js';
import { routeSettings } from './route-config.js';

const Username = Type.String({ minLength: 1, maxLength: 128 });
// Bounded so that nobody can make scrypt chew on megabytes.
const NewPassword = Type.String({ minLength: 8, maxLength: 1024 });
const GivenPassword = Type.String({ minLength: 1, maxLength: 1024 });

const CreateAdminBody = Type.Object({
  username: Username,
  password: NewPassword,
  setup_code: Type.Optional(Type.String({ maxLength: 256 })),
});

const LoginBody = Type.Object({ username: Username, password: GivenPassword });

const ResetPasswordBody = Type.Object({ current_password: GivenPassword, new_password: NewPassword });

const CreateAccessTokenBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 255 }),
  description: Type.Optional(Type.String({ maxLength: 1024 })),
  permission: Type.String({ minLength: 1, maxLength: 64 }),
  expires_at: Type.Optional(Type.Union([Type.String({ maxLength: 64 }), Type.Null()])),
});

const TokenIdParams = Type.Object({ token_id: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }) });

/**
 * The peer address, used only to limit failed password checks. It grants nothing: behind a
 * same-host proxy every client would look local (docs/api.md §7.5). Proxy headers are not trusted.
 */
function clientAddress(request: FastifyRequest): string {
  return request.ip;
}

/** Runs a password-checking call; a 429 gets the Retry-After header Qdrant clients read. */
async function withRetryAfter<Result>(auth: AuthService, address: string, reply: FastifyReply, call: () => Promise<Result>): Promise<Result> {
  try {
    return await call();
  } catch (error) {
    if (isQuiverError(error) && error.kind === 'too_many_requests') reply.header('retry-after', String(auth.retryAfterSeconds(address)));
    throw error;
  }
}

const authGroup = (permission: 'public' | 'admin') => routeSettings({ permission, envelope: 'auth' });

export function registerAuthRoutes(app: FastifyInstance): void {
  const auth = app.authService;

  app.get('/auth/admin/exists', { config: routeSettings({ permission: 'public', beforeReady: true }) }, async (_request, reply) =>
    success(reply, await auth.adminExists()),
  );

  app.post<{ Body: Static<typeof CreateAdminBody> }>(
    '/auth/admin',
    { config: authGroup('public'), schema: { body: CreateAdminBody } },
    async (request, reply) => {
      const address = clientAddress(request);
      await withRetryAfter(auth, address, reply, () =>
        auth.createAdmin(request.body.username, request.body.password, {
          setupCode: request.body.setup_code,
          address,
        }),
      );
      return { status: 'success', message: 'Admin user created' };
    },
  );

  app.post<{ Body: Static<typeof LoginBody> }>('/auth/login', { config: authGroup('public'), schema: { body: LoginBody } }, async (request, reply) => {
    const address = clientAddress(request);
    const issued = await withRetryAfter(auth, address, reply, () => auth.login(request.body.username, request.body.password, address));
    return { status: 'success', token: issued.token, token_type: 'Bearer', expires_at: new Date(issued.expires_at_ms).toISOString() };
  });

  app.post<{ Body: Static<typeof ResetPasswordBody> }>(
    '/auth/admin/reset_password',
    { config: authGroup('admin'), schema: { body: ResetPasswordBody } },
    async (request, reply) => {
      const address = clientAddress(request);
      await withRetryAfter(auth, address, reply, () => auth.resetPassword(request.body.current_password, request.body.new_password, address));
      return { status: 'success', message: 'Password changed; every JWT issued before now is revoked' };
    },
  );

  app.post<{ Body: Static<typeof CreateAccessTokenBody> }>(
    '/auth/access_token',
    { config: authGroup('admin'), schema: { body: CreateAccessTokenBody } },
    async (request) => auth.createAccessToken(request.body),
  );

  app.get('/auth/access_tokens', { config: authGroup('admin') }, async () => auth.listAccessTokens());

  app.delete<{ Params: Static<typeof TokenIdParams> }>(
    '/auth/access_token/:token_id',
    { config: authGroup('admin'), schema: { params: TokenIdParams } },
    async (request) => {
      await auth.deleteAccessToken(request.params.token_id);
      return { status: 'success', message: 'Access token deleted' };
    },
  );

  app.post<{ Params: Static<typeof TokenIdParams> }>(
    '/auth/access_token/:token_id/rotate',
    { config: authGroup('admin'), schema: { params: TokenIdParams } },
    async (request) => auth.rotateAccessToken(request.params.token_id),
  );
}
