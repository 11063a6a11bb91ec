// The dashboard's add-a-subscription form: its fields as typed, decoded into the same request body POST /v1/subscriptions takes.
import { CreateSubscriptionRequest } from "@mds/shared/api/Subscriptions"
import { Effect, Schema, SchemaIssue } from "effect"
import { InvalidForm } from "./DashboardErrors.ts"
import { decodeForm, field } from "./DashboardForms.ts"
import { destinationBodyOf } from "./DestinationForm.ts"

/** The form's fields exactly as the user typed them, so a rejected form comes back filled in. */
export interface SubscriptionFormValues {
  readonly url: string
  readonly format: string
  readonly check_every: string
  readonly title_contains: string
  readonly min_duration: string
  readonly max_duration: string
  readonly published_after: string
  readonly backfill: string
  /** Extension: deliver each entry into this destination of the project ("": keep the files on the service). */
  readonly destination: string
  /** The destination's path template ("": the default). */
  readonly path: string
  /** The retention rule (with a destination): none, the newest N entries, or those delivered within D days. */
  readonly keep: "" | "last" | "days"
  readonly keep_count: string
}

export const emptySubscriptionForm: SubscriptionFormValues = {
  url: "",
  format: "audio_mp3",
  check_every: "3600",
  title_contains: "",
  min_duration: "",
  max_duration: "",
  published_after: "",
  backfill: "0",
  destination: "",
  path: "",
  keep: "",
  keep_count: ""
}

/** The add form with a link (and a format) given in the page's query, the rest as on an empty form. */
export const prefilledSubscriptionForm = (query: Readonly<Record<string, unknown>> | undefined): SubscriptionFormValues => {
  const given = (name: string, max: number) => {
    const value = query?.[name]
    return typeof value === "string" && value.length <= max ? value.trim() : ""
  }
  return { ...emptySubscriptionForm, url: given("url", 2048), format: given("format", 64) || emptySubscriptionForm.format }
}

export const subscriptionFormValues = (body: unknown): SubscriptionFormValues => ({
  url: field(body, "url").trim(),
  format: field(body, "format"),
  check_every: field(body, "check_every").trim(),
  title_contains: field(body, "title_contains").trim(),
  min_duration: field(body, "min_duration").trim(),
  max_duration: field(body, "max_duration").trim(),
  published_after: field(body, "published_after").trim(),
  backfill: field(body, "backfill").trim(),
  destination: field(body, "destination").trim(),
  path: field(body, "path").trim(),
  keep: ((value) => (value === "last" || value === "days" ? value : ""))(field(body, "keep")),
  keep_count: field(body, "keep_count").trim()
})

const WholeNumber = (what: string) =>
  Schema.Int.check(Schema.isGreaterThanOrEqualTo(0, { message: `${what}: a whole number, 0 or more.` })).annotate({
    message: `${what}: a whole number, 0 or more.`
  })

const SubscriptionForm = Schema.Struct({
  url: Schema.String.check(Schema.isMinLength(1, { message: "Give the URL of a playlist, channel or feed." })),
  // Kept as typed: the API's schema below parses it, as it parses a /v1 request's.
  format: Schema.String.check(Schema.isMinLength(1, { message: "Choose a format." })),
  check_every: WholeNumber("Check every"),
  title_contains: Schema.optionalKey(
    Schema.String.check(Schema.isMaxLength(200, { message: "Keep the title filter under 200 characters." }))
  ),
  min_duration: Schema.optionalKey(WholeNumber("Minimum duration")),
  max_duration: Schema.optionalKey(WholeNumber("Maximum duration")),
  published_after: Schema.optionalKey(
    Schema.String.check(Schema.isPattern(/^\d{4}-\d{2}-\d{2}$/, { message: "Published after: a date (YYYY-MM-DD)." }))
  ),
  backfill: WholeNumber("Backfill"),
  keep_count: Schema.optionalKey(WholeNumber("Keep"))
})

/** A number field: empty is "not given"; anything but digits stays text so the schema names the field. */
const numberOf = (raw: string): number | string => (/^\d{1,9}$/.test(raw) ? Number(raw) : raw)
const given = <K extends string, V>(key: K, raw: string, value: V): { [P in K]?: V } =>
  (raw === "" ? {} : { [key]: value }) as { [P in K]?: V }

/** The form's fields by the request's paths, to name the one the API's bounds refuse. */
const LABELS: Readonly<Record<string, string>> = {
  url: "URL",
  format: "Format",
  check_every: "Check every",
  "filters.title_contains": "Title contains",
  "filters.min_duration": "Minimum duration",
  "filters.max_duration": "Maximum duration",
  "filters.published_after": "Published after",
  backfill: "Backfill",
  "destination.id": "Destination",
  "destination.path": "Path template",
  "retention.keep_last": "Keep the newest",
  "retention.keep_days": "Keep days",
  retention: "Keep"
}

const formatIssues = SchemaIssue.makeFormatterStandardSchemaV1()

/** The API's own schema, so the bounds a form must keep are the ones POST /v1/subscriptions keeps: one place. */
const decodeRequest = (candidate: unknown) =>
  Schema.decodeUnknownEffect(CreateSubscriptionRequest)(candidate).pipe(
    Effect.mapError((error) => {
      const issue = formatIssues(error.issue).issues[0]
      const path = (issue?.path ?? []).map((segment) => String(typeof segment === "object" ? segment.key : segment)).join(".")
      return new InvalidForm({ message: `${LABELS[path] ?? "The form"}: ${issue?.message ?? "check the value"}.` })
    })
  )

/** The form as the /v1 request body, decoded with that request's schema; the use case judges the rest (format, URL). */
export const decodeSubscriptionForm = (values: SubscriptionFormValues) =>
  decodeForm(SubscriptionForm, {
    url: values.url,
    format: values.format,
    check_every: numberOf(values.check_every),
    ...given("title_contains", values.title_contains, values.title_contains),
    ...given("min_duration", values.min_duration, numberOf(values.min_duration)),
    ...given("max_duration", values.max_duration, numberOf(values.max_duration)),
    ...given("published_after", values.published_after, values.published_after),
    backfill: values.backfill === "" ? 0 : numberOf(values.backfill),
    ...given("keep_count", values.keep_count, numberOf(values.keep_count))
  }).pipe(
    Effect.flatMap((form) => {
      const { url, format, check_every, backfill, keep_count, ...filters } = form
      if (values.keep !== "" && keep_count === undefined)
        return Effect.fail(new InvalidForm({ message: "Keep: give how many entries (or days) to keep." }))
      const delivery = destinationBodyOf(values)
      const retention =
        values.keep === "" || keep_count === undefined
          ? {}
          : { retention: values.keep === "last" ? { keep_last: keep_count } : { keep_days: keep_count } }
      return decodeRequest({ url, format, check_every, backfill, filters, ...delivery, ...retention })
    })
  )
