import { applyDecorators, type INestApplication } from '@nestjs/common';
import { ApiBody, ApiParam, ApiQuery, DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import type { OpenAPIObject, SchemaObject } from '@nestjs/swagger';
import { InternalHttpServer } from '@openpaw/platform';
import { z } from 'zod';

/** The OpenAPI (3.0) JSON Schema of a zod schema: the zod schema stays the only hand-written contract. */
export function openApiSchema(schema: z.ZodType, io: 'input' | 'output' = 'output'): SchemaObject {
  return z.toJSONSchema(schema, { target: 'openapi-3.0', io, unrepresentable: 'any' }) as SchemaObject;
}

function describeShape(schema: z.ZodObject, io: 'input' | 'output'): { name: string; required: boolean; schema: SchemaObject }[] {
  const json = openApiSchema(schema, io);
  const required = new Set(json.required ?? []);
  return Object.entries(json.properties ?? {}).map(([name, property]) => ({
    name,
    required: required.has(name),
    schema: property as SchemaObject,
  }));
}

/** Documents every field of a zod object as a path parameter. */
export function ApiZodParams(schema: z.ZodObject): MethodDecorator & ClassDecorator {
  return applyDecorators(...describeShape(schema, 'input').map((p) => ApiParam({ name: p.name, required: true, schema: p.schema })));
}

/** Documents every field of a zod object as a query parameter. */
export function ApiZodQuery(schema: z.ZodObject): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ...describeShape(schema, 'input').map((p) => ApiQuery({ name: p.name, required: p.required, schema: p.schema })),
  );
}

/**
 * Request bodies as the OpenAPI's `examples`, each checked against the zod schema the route parses
 * with (refinements included): a documented example is one the route accepts, so clients and the
 * OpenAPI fuzz can start from it. An example the schema refuses throws here, when the controller
 * module loads, naming the example and the field.
 */
export function validatedExamples(schema: z.ZodType, examples: Readonly<Record<string, unknown>>): Record<string, { value: unknown }> {
  return Object.fromEntries(
    Object.entries(examples).map(([name, value]) => {
      const parsed = schema.safeParse(value);
      if (!parsed.success) {
        const issues = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(body)'}: ${issue.message}`).join('; ');
        throw new Error(`the OpenAPI example "${name}" is refused by its own schema (${issues})`);
      }
      return [name, { value }];
    }),
  );
}

/**
 * Documents a JSON body with a zod schema, and examples of bodies the route accepts (see
 * `validatedExamples`), checked against `parsedBy`, the schema the route parses with, when it is not
 * the documented one (a body the route defaults when absent documents the object inside).
 */
export function ApiZodBody(
  schema: z.ZodType,
  options: { readonly required?: boolean; readonly examples: Readonly<Record<string, unknown>>; readonly parsedBy?: z.ZodType },
): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ApiBody({
      schema: openApiSchema(schema, 'input'),
      required: options.required ?? true,
      examples: validatedExamples(options.parsedBy ?? schema, options.examples),
    }),
  );
}

export const BEARER_SCHEME = 'bearer';

/** The gateway's OpenAPI document, from its controllers' decorators (no listening, no connections needed). */
export function openApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('OpenPaw API')
    .setDescription(
      'The public API of OpenPaw: submit workflows, follow their runs (REST and server-sent events), cancel them. ' +
        'Every route except the probes needs a bearer token: a JWT from the identity provider (RS256/ES256, verified with its JWKS, `OPENPAW_JWKS_URL` or OIDC discovery), ' +
          'or, in development, HS256 with the shared secret. A user sees only their own runs.',
    )
    .setVersion('1')
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }, BEARER_SCHEME)
    .build();
  return SwaggerModule.createDocument(app, config);
}

/** Serves the OpenAPI document at `/docs/openapi.json` and Swagger UI at `/docs` (see `docsArePublic`). */
export function setupOpenApi(app: INestApplication, docsPublic: boolean): void {
  const document = openApiDocument(app);
  const internal = app.get(InternalHttpServer);
  // Always on the internal port (when there is one); on the public port only by flag, or when there is no internal port (local dev).
  internal.add('/docs/openapi.json', () => Promise.resolve({ contentType: 'application/json', body: JSON.stringify(document) }));
  if (docsArePublic(docsPublic, internal.enabled)) {
    SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'docs/openapi.json', raw: ['json'] });
  }
}

/** `docsPublic` (`OPENPAW_DOCS_PUBLIC=true`) serves Swagger UI and the document on the public port next to the internal one. */
export function docsArePublic(docsPublic: boolean, internalPort: boolean): boolean {
  return docsPublic || !internalPort;
}
