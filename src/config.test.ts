import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, configPathFromArguments, loadConfig } from './config.js';

describe('configuration', () => {
  it('defaults serve on 127.0.0.1:6573 with data in ./storage and auth off', () => {
    const config = loadConfig();
    expect(config.service.host).toBe('127.0.0.1');
    expect(config.service.http_port).toBe(6573);
    expect(config.storage.path).toBe('./storage');
    expect(config.auth.enabled).toBe(false);
    expect(Object.isFrozen(config.service)).toBe(true);
  });

  it('environment variables override the file, converted to the declared types', () => {
    const directory = mkdtempSync(join(tmpdir(), 'quiver-config-'));
    const file = join(directory, 'config.yaml');
    writeFileSync(file, 'service:\n  http_port: 7000\nauth:\n  enabled: false\n');
    const config = loadConfig({ file, environment: { QUIVER__SERVICE__HTTP_PORT: '7100', QUIVER__AUTH__ENABLED: 'true', UNRELATED: 'x' } });
    expect(config.service.http_port).toBe(7100);
    expect(config.auth.enabled).toBe(true);
  });

  it('reads JSON config files too', () => {
    const directory = mkdtempSync(join(tmpdir(), 'quiver-config-'));
    const file = join(directory, 'config.json');
    writeFileSync(file, JSON.stringify({ storage: { path: '/tmp/x', fsync: false } }));
    expect(loadConfig({ file }).storage).toMatchObject({ path: '/tmp/x', fsync: false });
  });

  it('refuses an invalid value with a message naming the key', () => {
    expect(() => loadConfig({ environment: { QUIVER__SERVICE__HTTP_PORT: 'seventy' } })).toThrow(ConfigError);
    expect(() => loadConfig({ environment: { QUIVER__SERVICE__HTTP_PORT: '70000' } })).toThrow(/service\.http_port/);
  });

  it('refuses unknown sections, keys and variables instead of ignoring them', () => {
    expect(() => loadConfig({ overrides: { servce: {} } })).toThrow(/unknown configuration section "servce"/);
    expect(() => loadConfig({ overrides: { service: { prot: 1 } } })).toThrow(/unknown configuration key "service.prot"/);
    expect(() => loadConfig({ environment: { QUIVER__SERVICE__PROT: '1' } })).toThrow(/QUIVER__SERVICE__PROT/);
  });

  it('finds --config in both spellings', () => {
    expect(configPathFromArguments(['--config', 'a.yaml'])).toBe('a.yaml');
    expect(configPathFromArguments(['--config=b.yaml'])).toBe('b.yaml');
    expect(configPathFromArguments([])).toBeUndefined();
    expect(() => configPathFromArguments(['--config'])).toThrow(ConfigError);
  });
});
