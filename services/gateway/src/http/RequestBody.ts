// Decodes request bodies and URLs with Effect Schema into InvalidRequest failures that name the offending field.
import { Effect, Schema, SchemaIssue } from "effect"
import { InvalidRequest } from "./GatewayErrors.ts"

const formatIssues = SchemaIssue.makeFormatterStandardSchemaV1()

const describe = (issue: SchemaIssue.Issue): string => {
  const { issues } = formatIssues(issue)
  const parts = issues.map((item) => {
    const path = (item.path ?? []).map((segment) => String(typeof segment === "object" ? segment.key : segment))
    return path.length > 0 ? `${path.join(".")}: ${item.message}` : item.message
  })
  // A union reports a missing field once per member; once is enough.
  return parts.length > 0 ? [...new Set(parts)].join("; ") : "The request body is invalid."
}

export const decodeBody = <A, I>(schema: Schema.Codec<A, I>, body: unknown): Effect.Effect<A, InvalidRequest> =>
  Schema.decodeUnknownEffect(schema)(body).pipe(
    Effect.mapError((error) => new InvalidRequest({ message: `Invalid request body: ${describe(error.issue)}.` }))
  )

export { HttpUrlString, MAX_URL_LENGTH } from "@mds/shared/api/Requests"

/** Only absolute http(s) URLs can name public media; anything else is a client mistake, not a platform question. */
export const parseHttpUrl = (field: string, raw: string): Effect.Effect<URL, InvalidRequest> => {
  const url = URL.canParse(raw) ? new URL(raw) : null
  if (url === null || (url.protocol !== "http:" && url.protocol !== "https:") || url.hostname === "") {
    return Effect.fail(new InvalidRequest({ message: `${field}: must be an absolute http or https URL.` }))
  }
  return Effect.succeed(url)
}
