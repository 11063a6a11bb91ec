// The failure that ends a resolve, with the stable code the resolve reply carries (ResolveFailureCode).
import { Schema } from "effect"
import { ResolveFailureCode } from "@mds/shared/domain/media/ResolveRpc"

export class ResolveFailure extends Schema.TaggedError<ResolveFailure>()("ResolveFailure", {
  code: ResolveFailureCode,
  message: Schema.String
}) {}

export const failWith = (code: ResolveFailureCode, message: string) => new ResolveFailure({ code, message })
