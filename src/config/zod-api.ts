// The part of zod ficta uses, by name: a namespace import of 'zod' would bundle all of it (every locale,
// the whole API) into `ficta serve`'s start, where only the config schemas' builders are needed.

export { array, boolean, config, discriminatedUnion, enum, globalRegistry, literal, NEVER, number, object, record, string, toJSONSchema, tuple, union, ZodError } from 'zod';
export type { infer, input, ZodType } from 'zod';
