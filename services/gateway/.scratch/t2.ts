import { Effect, Schema } from "effect"
import { decodeBody, HttpUrlString } from "../src/http/RequestBody.ts"
const Body = Schema.Struct({ url: HttpUrlString, format: Schema.optional(Schema.String) })
for (const b of [{ url: 5 }, {}, "x", { url: "" }, { url: "a".repeat(3000) }, { url: "http://x", format: 3 }])
  console.log(await Effect.runPromise(Effect.result(decodeBody(Body, b))))
