// The dashboard's add-a-subscription form: its fields as typed, decoded into the same request body POST /v1/subscriptions takes.
import type { CreateSubscriptionRequest } from "@mds/shared/api/Subscriptions"
import { Effect, Schema } from "effect"
import { decodeForm, field } from "./DashboardForms.ts"

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
}

export const emptySubscriptionForm: SubscriptionFormValues = {
  url: "",
  format: "audio_mp3",
  check_every: "3600",
  title_contains: "",
  min_duration: "",
  max_duration: "",
  published_after: "",
  backfill: "0"
}

export const subscriptionFormValues = (body: unknown): SubscriptionFormValues => ({
  url: field(body, "url").trim(),
  format: field(body, "format"),
  check_every: field(body, "check_every").trim(),
  title_contains: field(body, "title_contains").trim(),
  min_duration: field(body, "min_duration").trim(),
  max_duration: field(body, "max_duration").trim(),
  published_after: field(body, "published_after").trim(),
  backfill: field(body, "backfill").trim()
})

const WholeNumber = (what: string) =>
  Schema.Int.check(Schema.isGreaterThanOrEqualTo(0, { message: `${what}: a whole number, 0 or more.` })).annotate({
    message: `${what}: a whole number, 0 or more.`
  })

const SubscriptionForm = Schema.Struct({
  url: Schema.String.check(Schema.isMinLength(1, { message: "Give the URL of a playlist, channel or feed." })),
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
  backfill: WholeNumber("Backfill")
})

/** A number field: empty is "not given"; anything but digits stays text so the schema names the field. */
const numberOf = (raw: string): number | string => (/^\d{1,9}$/.test(raw) ? Number(raw) : raw)
const given = <K extends string, V>(key: K, raw: string, value: V): { [P in K]?: V } =>
  (raw === "" ? {} : { [key]: value }) as { [P in K]?: V }

/** The form as the /v1 request body; the rules on it (interval, backfill, format, URL) are the use case's, not repeated here. */
export const decodeSubscriptionForm = (values: SubscriptionFormValues) =>
  Effect.map(
    decodeForm(SubscriptionForm, {
      url: values.url,
      format: values.format,
      check_every: numberOf(values.check_every),
      ...given("title_contains", values.title_contains, values.title_contains),
      ...given("min_duration", values.min_duration, numberOf(values.min_duration)),
      ...given("max_duration", values.max_duration, numberOf(values.max_duration)),
      ...given("published_after", values.published_after, values.published_after),
      backfill: values.backfill === "" ? 0 : numberOf(values.backfill)
    }),
    (form): CreateSubscriptionRequest => {
      const { url, format, check_every, backfill, published_after, ...filters } = form
      return {
        url,
        format,
        check_every,
        backfill,
        filters: { ...filters, ...(published_after === undefined ? {} : { published_after: `${published_after}T00:00:00Z` }) }
      }
    }
  )
