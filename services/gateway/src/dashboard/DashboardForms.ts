// The dashboard's form bodies, decoded with Schema; a field the user must fix becomes InvalidForm with a readable message.
import { KeyEnvironment, Scope } from "@mds/shared/domain/account/AccountEvent"
import { Email, normalizeEmail } from "@mds/shared/ids/UserId"
import { Effect, Schema, SchemaIssue } from "effect"
import { InvalidForm } from "./DashboardErrors.ts"

/** application/x-www-form-urlencoded as parsed by the dashboard: repeated fields become arrays. */
export type FormBody = Readonly<Record<string, string | ReadonlyArray<string>>>

export const parseFormBody = (text: string): FormBody => {
  const out: Record<string, string | Array<string>> = {}
  for (const [name, value] of new URLSearchParams(text)) {
    const existing = out[name]
    out[name] = existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value]
  }
  return out
}

export const field = (body: unknown, name: string): string => {
  const value = typeof body === "object" && body !== null ? (body as FormBody)[name] : undefined
  return typeof value === "string" ? value : Array.isArray(value) ? (value[0] ?? "") : ""
}

export const fields = (body: unknown, name: string): ReadonlyArray<string> => {
  const value = typeof body === "object" && body !== null ? (body as FormBody)[name] : undefined
  return typeof value === "string" ? [value] : Array.isArray(value) ? value : []
}

const Name = Schema.String.check(
  Schema.isMinLength(1, { message: "Give it a name." }),
  Schema.isMaxLength(100, { message: "Keep the name under 100 characters." })
)

export const ProjectForm = Schema.Struct({ name: Name })
export const KeyForm = Schema.Struct({
  name: Name,
  environment: KeyEnvironment,
  scopes: Schema.Array(Scope).check(Schema.isMinLength(1, { message: "Choose at least one scope." }))
})
export const MemberForm = Schema.Struct({ email: Email })
export const LoginForm = Schema.Struct({
  email: Schema.String.check(Schema.isMaxLength(254)),
  password: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(1024))
})

const formatIssues = SchemaIssue.makeFormatterStandardSchemaV1()

export const decodeForm = <A>(schema: Schema.Codec<A, unknown>, raw: unknown) =>
  Schema.decodeUnknownEffect(schema)(raw).pipe(
    Effect.mapError((error) => {
      const issue = formatIssues(error.issue).issues[0]
      const where = (issue?.path ?? []).map(String)[0]
      const message = issue?.message ?? "Check the form."
      // Schema's own messages ("Expected ...") are for developers; say what to fix instead.
      return new InvalidForm({ message: message.startsWith("Expected") ? `Check the field ${where ?? "values"}.` : message })
    })
  )

export const decodeProjectForm = (body: unknown) => decodeForm(ProjectForm, { name: field(body, "name").trim() })
export const decodeKeyForm = (body: unknown) =>
  decodeForm(KeyForm, { name: field(body, "name").trim(), environment: field(body, "environment"), scopes: fields(body, "scopes") })
export const decodeMemberForm = (body: unknown) => decodeForm(MemberForm, { email: normalizeEmail(field(body, "email")) })
export const decodeLoginForm = (body: unknown) =>
  decodeForm(LoginForm, { email: normalizeEmail(field(body, "email")), password: field(body, "password") })
