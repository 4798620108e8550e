import type { NestExpressApplication } from '@nestjs/platform-express';

/** A route as Express holds it: `GET /v1/workspaces/:id/files{/*path}`. */
export interface HttpRoute {
  method: string;
  path: string;
}

interface RouterLayer {
  route?: { path: string | string[]; methods: Record<string, boolean | undefined> };
}

/** Every route the app serves, read from its Express router once Nest has registered them. */
export function httpRoutes(app: NestExpressApplication): HttpRoute[] {
  const express = app.getHttpAdapter().getInstance() as { router: { stack: RouterLayer[] } };
  return express.router.stack.flatMap(({ route }) => {
    if (!route) return [];
    const paths = Array.isArray(route.path) ? route.path : [route.path];
    const methods = Object.keys(route.methods).filter((method) => route.methods[method] && method !== '_all');
    return paths.flatMap((path) => methods.map((method) => ({ method: method.toUpperCase(), path })));
  });
}
