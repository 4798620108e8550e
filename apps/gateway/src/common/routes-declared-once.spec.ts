import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { PATH_METADATA } from '@nestjs/common/constants';
import { apiRoutes } from '@weft/contracts';
import { beforeAll, describe, expect, it } from 'vitest';
import { API_ROUTE } from './api-route.decorator';


const SRC = join(__dirname, '..');

/** Every handler of every controller of the gateway: `[file, Class.method, handler]`. */
async function handlers(): Promise<Array<[string, string, object]>> {
  const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.controller.ts'));
  const modules = await Promise.all(files.map(async (file) => [relative(SRC, join(SRC, file)), (await import(join(SRC, file))) as Record<string, unknown>] as const));
  return modules.flatMap(([file, exports]) =>
    Object.values(exports).flatMap((value) => {
      if (typeof value !== 'function' || Reflect.getMetadata(PATH_METADATA, value) === undefined) return [];
      const proto = (value as { prototype: Record<string, unknown> }).prototype;
      return Object.getOwnPropertyNames(proto).flatMap((name) => {
        const handler = proto[name];
        if (name === 'constructor' || typeof handler !== 'function' || Reflect.getMetadata(PATH_METADATA, handler) === undefined) return [];
        return [[file, `${value.name}.${name}`, handler] as [string, string, object]];
      });
    }),
  );
}

describe('routes declared once', () => {
  let all: Array<[string, string, object]>;
  // Loading every controller (and all they import) takes a while on a busy machine.
  beforeAll(async () => {
    all = await handlers();
  }, 120_000);

  it('serves every handler of every controller through @Route, from an entry of apiRoutes, each entry once', () => {
    expect(all.length).toBeGreaterThan(60);
    const entries = new Set<unknown>(Object.values(apiRoutes));
    const undeclared = all.filter(([, , handler]) => !entries.has(Reflect.getMetadata(API_ROUTE, handler))).map(([file, name]) => `${file} ${name}`);
    expect(undeclared).toEqual([]);
    const served = all.map(([, , handler]) => Reflect.getMetadata(API_ROUTE, handler) as unknown);
    expect(new Set(served).size).toBe(served.length);
  });
});
