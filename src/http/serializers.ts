import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

type SerializerFactory = ReturnType<typeof SerializerSelector>;
type Serializer = ReturnType<ReturnType<SerializerFactory>>;

/**
 * Fastify's own serializer compiler (fast-json-stringify), compiling each response schema once.
 * Fastify asks for a serializer per route and status code, in each of its 21 plugin contexts, and
 * every API route shares the same error schemas (http/schemas.ts): at startup that was 151
 * compilations of 35 schemas, about 70 ms before the server listens. A compiled serializer depends
 * only on its schema, the shared schemas and the options, so serializers are kept per schema object
 * among the contexts whose shared schemas and options are the same (all of them, today).
 */
export function compilingOncePerSchema(): SerializerFactory {
  const factory = SerializerSelector();
  const bySetting = new Map<string, WeakMap<object, Serializer>>();
  return (externalSchemas, options) => {
    const compile = factory(externalSchemas, options);
    const setting = JSON.stringify([externalSchemas, options]);
    const known = bySetting.get(setting) ?? new WeakMap<object, Serializer>();
    bySetting.set(setting, known);
    return (route) => {
      const schema = route.schema;
      if (typeof schema !== 'object' || schema === null) return compile(route);
      let serializer = known.get(schema);
      if (serializer === undefined) {
        serializer = compile(route);
        known.set(schema, serializer);
      }
      return serializer;
    };
  };
}
