import { Effect, Schema, Logger, Option } from "effect"
const Body = Schema.Struct({ url: Schema.String.check(Schema.isMaxLength(2048)), format: Schema.optional(Schema.String) })
const r = await Effect.runPromise(Effect.result(Schema.decodeUnknownEffect(Body)({ url: 5, extra: 1 })))
console.log(r._tag, String((r as any).failure), (r as any).failure?._tag, Object.keys((r as any).failure))
const r2 = await Effect.runPromise(Effect.result(Schema.decodeUnknownEffect(Body)({ })))
console.log(String((r2 as any).failure))
const r3 = await Effect.runPromise(Effect.result(Schema.decodeUnknownEffect(Body)("x")))
console.log(String((r3 as any).failure))
console.log(Object.keys(Logger))
