// A failure plus response headers that belong on its error response too (e.g. RateLimit-* of the key that failed).
import { Schema } from "effect"

export class FailureWithHeaders extends Schema.TaggedError<FailureWithHeaders>()("FailureWithHeaders", {
  /** An ApiFailure; typed loosely here because ErrorMapping's union includes this class. */
  failure: Schema.Any,
  headers: Schema.Record(Schema.String, Schema.String)
}) {
  /** Server-side failures are logged with this: it names the wrapped failure, not the wrapper. */
  override get message(): string {
    const inner = this.failure as { readonly _tag?: string; readonly message?: string }
    return `${inner._tag ?? "failure"}: ${inner.message ?? ""}`
  }
}
