// config -> app -> listen -> load. The server listens at once so health checks answer while
// collections load (other routes answer 412 until then); SIGINT/SIGTERM close it cleanly.
import { buildApp } from './app.js';
import { ConfigError, configPathFromArguments, loadConfig, type Config } from './config.js';
import { createLogger } from './logging.js';
import { codeCacheStatus } from './start/code-cache.js';
import { octalMode, preparePrivateDirectory, privateUmask } from './storage/private-directory.js';

async function main(): Promise<void> {
  // Before anything touches the disk: every file this process creates is private (docs/api.md §7.4).
  process.umask(privateUmask);
  let config: Config;
  try {
    config = loadConfig({ file: configPathFromArguments(process.argv.slice(2)), environment: process.env });
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`quiverdb: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const logger = createLogger(config);
  const directory = await preparePrivateDirectory(config.storage.path);
  if (directory.openToOthers) {
    // Warned, not changed: an operator may share the directory on purpose.
    logger.warn(
      { storage: config.storage.path, mode: octalMode(directory.mode) },
      `the data directory is open to other users (mode ${octalMode(directory.mode)}); it holds the admin's password hash and the access tokens' digests: chmod 700 it`,
    );
  }
  const app = buildApp(config, { logger });

  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    logger.info({ signal }, 'shutting down');
    app.close().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));

  const address = await app.listen({ host: config.service.host, port: config.service.http_port });
  logger.info({ address, storage: config.storage.path, auth: config.auth.enabled, code_cache: codeCacheStatus() }, 'quiverdb listening');
  // The engine opens while the gRPC door loads its stack: much of a start waits on the addon's
  // threads (the table check, checkpoint loads), time this thread can spend loading modules.
  const opened = app.engine.open().then(
    () => undefined,
    (error: unknown) => error,
  );
  // The gRPC door (docs/api.md §14); grpc_port 0 or null disables it. Its stack takes this
  // thread about a quarter of a second to load: loaded once the first collections wait only on
  // the kernel's checkpoint loads, it no longer holds up the engine's steps on the way there.
  if (config.service.grpc_port) {
    await Promise.race([app.collections.kernelBound, opened]);
    try {
      const grpcPort = await app.grpc.listen(config.service.host, config.service.grpc_port);
      logger.info({ grpcPort }, 'quiverdb gRPC listening');
    } catch (error) {
      // Stopped the same way as before the engine opened in parallel: nothing left half-open.
      logger.fatal({ err: error, grpcPort: config.service.grpc_port }, 'could not open the gRPC door; refusing to serve');
      await opened;
      await app.close().catch(() => undefined);
      process.exit(1);
    }
  }
  const error = await opened;
  if (error !== undefined) {
    logger.fatal({ err: error }, 'could not load the data directory; refusing to serve');
    await app.close().catch(() => undefined);
    process.exit(1);
  }
  // The start is over: the gRPC door's message descriptors are built now, so no later call waits.
  // They come with the bundle, so a failure is a broken install, refused like a door that cannot open.
  if (config.service.grpc_port) {
    try {
      await app.grpc.describe();
    } catch (describeError) {
      logger.fatal({ err: describeError }, "could not build the gRPC door's descriptors; refusing to serve");
      await app.close().catch(() => undefined);
      process.exit(1);
    }
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`quiverdb: fatal: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
