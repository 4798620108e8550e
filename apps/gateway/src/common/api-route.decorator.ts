import { HttpCode, RequestMapping, RequestMethod, SetMetadata, UseGuards, applyDecorators } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import type { ApiRoute, HttpMethod, RouteAuth } from '@weft/contracts';
import type { z } from 'zod';
import { AdminGuard } from '../auth/admin.guard';
import { UserAuthGuard } from '../auth/user-auth.guard';
import { ZodValidationPipe } from './zod-validation.pipe';

/** The contract a handler serves, for whoever wants to read it back from the handler. */
export const API_ROUTE = Symbol('weft:api-route');

const METHODS: Record<HttpMethod, RequestMethod> = {
  GET: RequestMethod.GET,
  POST: RequestMethod.POST,
  PUT: RequestMethod.PUT,
  PATCH: RequestMethod.PATCH,
  DELETE: RequestMethod.DELETE,
};

const GUARDS: Record<RouteAuth, Array<new (...args: never[]) => unknown>> = {
  user: [UserAuthGuard],
  admin: [AdminGuard],
  none: [],
};

interface RouteArgument {
  index: number;
  data: unknown;
  pipes: unknown[];
}

/**
 * Puts the schema's pipe first on the handler's whole `@Body()` (or `@Query()`), exactly where an
 * inline `@Body(new ZodValidationPipe(schema))` would put it, so errors come in the same order.
 * Parameter decorators have run by the time a method decorator does, so the argument is there.
 */
function validateArgument(target: object, key: string | symbol, paramtype: RouteParamtypes, schema: z.ZodType, route: ApiRoute): void {
  const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, target.constructor, key) ?? {}) as Record<string, RouteArgument>;
  const found = Object.entries(args).find(([name, arg]) => name.startsWith(`${paramtype}:`) && arg.data === undefined);
  if (!found) {
    const what = paramtype === RouteParamtypes.BODY ? '@Body()' : '@Query()';
    throw new Error(`${route.method} ${route.path}: the route has a schema but ${String(key)} takes no ${what} to validate it on`);
  }
  const [name, arg] = found;
  Reflect.defineMetadata(ROUTE_ARGS_METADATA, { ...args, [name]: { ...arg, pipes: [new ZodValidationPipe(schema), ...arg.pipes] } }, target.constructor, key);
}

/**
 * Serves a handler as one route of `apiRoutes`: its method and full path, its success status, the
 * guard its `auth` names, and its JSON body and query schemas. Its controller takes no path prefix.
 */
export function Route(route: ApiRoute): MethodDecorator {
  const guards = GUARDS[route.auth];
  const mapping = applyDecorators(
    RequestMapping({ method: METHODS[route.method], path: route.path }),
    HttpCode(route.status ?? 200),
    SetMetadata(API_ROUTE, route),
    ...(guards.length > 0 ? [UseGuards(...guards)] : []),
  );
  return (target, key, descriptor) => {
    if (route.body && route.body !== 'gzip') validateArgument(target, key, RouteParamtypes.BODY, route.body, route);
    if (route.query) validateArgument(target, key, RouteParamtypes.QUERY, route.query, route);
    mapping(target, key, descriptor);
  };
}
