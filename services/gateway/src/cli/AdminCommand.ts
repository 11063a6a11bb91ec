// The admin CLI's commands, decoded from argv with Schema: projects, members, keys and dashboard users.
import { KeyEnvironment, type QuotaSetting, Scope } from "@mds/shared/domain/account/AccountEvent"
import { parseByteSize } from "@mds/shared/config/ByteSize"
import { ALL_WEBHOOK_EVENT_TYPES, WebhookEventType } from "@mds/shared/domain/webhook/WebhookEvent"
import { YtDlpReleaseChoice } from "@mds/shared/domain/release/YtDlpReleaseEvent"
import { DestinationId, ProjectId } from "@mds/shared/ids/Ids"
import { Email, normalizeEmail } from "@mds/shared/ids/UserId"
import { Effect, Schema, SchemaIssue } from "effect"

const NonEmpty = Schema.String.check(Schema.isMinLength(1, { message: "must not be empty" }))

export const CreateProjectCommand = Schema.TaggedStruct("CreateProject", { name: NonEmpty })
export const CreateKeyCommand = Schema.TaggedStruct("CreateKey", {
  projectId: ProjectId,
  name: NonEmpty,
  scopes: Schema.Array(Scope).check(Schema.isMinLength(1, { message: "at least one scope is required" })),
  environment: KeyEnvironment
})
/** A secret (svc_live_/svc_test_...) or a key id (key_...). */
export const RevokeKeyCommand = Schema.TaggedStruct("RevokeKey", { key: NonEmpty })

export const AddMemberCommand = Schema.TaggedStruct("AddMember", { projectId: ProjectId, email: Email })
/** Without --password-stdin a password is generated and printed once. */
export const CreateUserCommand = Schema.TaggedStruct("CreateUser", { email: Email, passwordFromStdin: Schema.Boolean })
export const SetPasswordCommand = Schema.TaggedStruct("SetPassword", { email: Email, passwordFromStdin: Schema.Boolean })
const HttpUrl = NonEmpty.check(
  Schema.makeFilter((url: string) =>
    /^https?:\/\/[^/]/.test(url) && URL.canParse(url) ? undefined : "must be an absolute http or https URL"
  )
)
export const SetWebhookCommand = Schema.TaggedStruct("SetWebhook", {
  projectId: ProjectId,
  url: HttpUrl,
  events: Schema.Array(WebhookEventType).check(Schema.isMinLength(1, { message: "at least one event is required" }))
})
export const RemoveWebhookCommand = Schema.TaggedStruct("RemoveWebhook", { projectId: ProjectId })
export const ListDeliveriesCommand = Schema.TaggedStruct("ListDeliveries", {
  projectId: ProjectId,
  limit: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 1000 }))
})

const wholeCount = (text: string): number | string => (/^\d+$/u.test(text) ? Number(text) : `"${text}" is not a whole number`)

/** A quota flag's value read as a setting: a size or count, "unlimited", or "default" (the server's QUOTA_* setting). */
export const quotaSettingOf = (text: string, parse: (text: string) => number | string): QuotaSetting | string =>
  text === "unlimited" || text === "default" ? text : parse(text)

const quotaValue = (parse: (text: string) => number | string) =>
  Schema.String.check(
    Schema.makeFilter((text: string) => {
      const setting = quotaSettingOf(text, parse)
      return typeof setting === "string" && setting !== "unlimited" && setting !== "default" ? setting : undefined
    })
  )

export const parseQuotaBytes = (text: string) => quotaSettingOf(text, parseByteSize) as QuotaSetting
export const parseQuotaJobs = (text: string) => quotaSettingOf(text, wholeCount) as QuotaSetting

export const SetQuotaCommand = Schema.TaggedStruct("SetQuota", {
  projectId: ProjectId,
  bytesPerMonth: Schema.optionalKey(quotaValue(parseByteSize)),
  jobsPerDay: Schema.optionalKey(quotaValue(wholeCount)),
  subscriptions: Schema.optionalKey(quotaValue(wholeCount))
})

/** How many projects a dashboard user may create there: a count, unlimited, or the server's default. */
export const SetUserProjectLimitCommand = Schema.TaggedStruct("SetUserProjectLimit", { email: Email, limit: quotaValue(wholeCount) })

/** Extension: give a project a folder on this host as a destination (only the operator names a path). */
export const AddFolderDestinationCommand = Schema.TaggedStruct("AddFolderDestination", {
  projectId: ProjectId,
  name: NonEmpty.check(Schema.isMaxLength(100, { message: "must be at most 100 characters" })),
  path: NonEmpty.check(Schema.makeFilter((path: string) => (path.startsWith("/") ? undefined : "must be an absolute path"))),
  /** A media server told after deliveries (its token from MDS_LIBRARY_REFRESH_TOKEN, never a flag). */
  refreshType: Schema.optionalKey(Schema.Literals(["jellyfin", "plex"])),
  refreshUrl: Schema.optionalKey(
    NonEmpty.check(
      Schema.makeFilter((url: string) => (/^https?:\/\/[^/?#@\s]+(?:\/[^?#\s]*)?$/i.test(url) ? undefined : "must be an http(s) URL"))
    )
  )
})
export const ListDestinationsCommand = Schema.TaggedStruct("ListDestinations", { projectId: ProjectId })
export const RemoveDestinationCommand = Schema.TaggedStruct("RemoveDestination", { projectId: ProjectId, destinationId: DestinationId })

export const UseYtDlpReleaseCommand = Schema.TaggedStruct("UseYtDlpRelease", { choice: YtDlpReleaseChoice })
export const ExtractorsStatusCommand = Schema.TaggedStruct("ExtractorsStatus", {})

export const AdminCommand = Schema.Union([
  UseYtDlpReleaseCommand,
  ExtractorsStatusCommand,
  CreateProjectCommand,
  CreateKeyCommand,
  RevokeKeyCommand,
  AddMemberCommand,
  CreateUserCommand,
  SetPasswordCommand,
  SetWebhookCommand,
  RemoveWebhookCommand,
  ListDeliveriesCommand,
  SetQuotaCommand,
  SetUserProjectLimitCommand,
  AddFolderDestinationCommand,
  ListDestinationsCommand,
  RemoveDestinationCommand
])
export type AdminCommand = typeof AdminCommand.Type

export const USAGE = `usage:
  project create NAME
  key create --project PROJECT_ID --name NAME --scopes media:resolve,media:download [--env live|test]
  key revoke KEY_OR_KEY_ID
  project add-member PROJECT_ID EMAIL
  project quota PROJECT_ID [--bytes-per-month 50GB|unlimited|default] [--jobs-per-day 500|unlimited|default]
                           [--subscriptions 100|unlimited|default]
  user create EMAIL [--password-stdin]
  user set-password EMAIL [--password-stdin]
  user project-limit EMAIL 20|unlimited|default   (projects the user may create in the dashboard; default DASHBOARD_PROJECTS_PER_USER)
  webhook set --project PROJECT_ID --url URL [--events job.completed,job.failed,subscription.entries_queued,subscription.failing]   (prints the signing secret)
  webhook remove --project PROJECT_ID
  webhook deliveries --project PROJECT_ID [--limit N]
  destination add-folder --project PROJECT_ID --name NAME --path /ABSOLUTE/PATH   (prints its id; inside DESTINATION_FOLDER_ROOT when set)
    [--refresh-type jellyfin|plex --refresh-url URL]   (a media server refreshed after deliveries; its token in MDS_LIBRARY_REFRESH_TOKEN)
  destination list --project PROJECT_ID
  destination remove --project PROJECT_ID DESTINATION_ID
  extractors use stable|nightly|VERSION   (the yt-dlp release every extractor installs, checks and switches to)
  extractors status`

export class UsageError extends Schema.TaggedError<UsageError>()("UsageError", { message: Schema.String }) {}

/** Flags that take no value. */
const SWITCHES = new Set(["password-stdin"])

/** Splits argv into positional words and --flag values (both "--flag value" and "--flag=value"). */
const splitArgs = (argv: ReadonlyArray<string>) => {
  const words: Array<string> = []
  const flags: Record<string, string> = {}
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? ""
    if (!arg.startsWith("--")) {
      words.push(arg)
      continue
    }
    if (SWITCHES.has(arg.slice(2))) {
      flags[arg.slice(2)] = "true"
      continue
    }
    const eq = arg.indexOf("=")
    if (eq > 0) flags[arg.slice(2, eq)] = arg.slice(eq + 1)
    else flags[arg.slice(2)] = argv[++i] ?? ""
  }
  return { words, flags }
}

const candidate = (argv: ReadonlyArray<string>): unknown => {
  const { flags, words } = splitArgs(argv)
  const [noun, verb, operand, ...rest] = words
  if (noun === "project" && verb === "add-member" && Object.keys(flags).length === 0 && rest.length === 1) {
    return { _tag: "AddMember", projectId: operand, email: normalizeEmail(rest[0] ?? "") }
  }
  if (noun === "user" && verb === "project-limit" && operand !== undefined && Object.keys(flags).length === 0 && rest.length === 1) {
    return { _tag: "SetUserProjectLimit", email: normalizeEmail(operand), limit: rest[0] }
  }
  if (rest.length > 0) return null
  if (noun === "project" && verb === "quota" && operand !== undefined) {
    const known = new Set(["bytes-per-month", "jobs-per-day", "subscriptions"])
    if (Object.keys(flags).length === 0 || Object.keys(flags).some((flag) => !known.has(flag))) return null
    return {
      _tag: "SetQuota",
      projectId: operand,
      ...(flags["bytes-per-month"] === undefined ? {} : { bytesPerMonth: flags["bytes-per-month"] }),
      ...(flags["jobs-per-day"] === undefined ? {} : { jobsPerDay: flags["jobs-per-day"] }),
      ...(flags["subscriptions"] === undefined ? {} : { subscriptions: flags["subscriptions"] })
    }
  }
  if (noun === "project" && verb === "create" && Object.keys(flags).length === 0) {
    return { _tag: "CreateProject", name: operand }
  }
  if (noun === "key" && verb === "create" && operand === undefined) {
    const known = new Set(["project", "name", "scopes", "env"])
    if (Object.keys(flags).some((flag) => !known.has(flag))) return null
    return {
      _tag: "CreateKey",
      projectId: flags["project"],
      name: flags["name"],
      scopes: flags["scopes"]
        ?.split(",")
        .map((s) => s.trim())
        .filter((s) => s !== ""),
      environment: flags["env"] ?? "live"
    }
  }
  if (noun === "key" && verb === "revoke" && Object.keys(flags).length === 0) return { _tag: "RevokeKey", key: operand }
  if (noun === "user" && (verb === "create" || verb === "set-password")) {
    if (Object.keys(flags).some((flag) => !SWITCHES.has(flag))) return null
    return {
      _tag: verb === "create" ? "CreateUser" : "SetPassword",
      email: normalizeEmail(operand ?? ""),
      passwordFromStdin: flags["password-stdin"] === "true"
    }
  }
  if (noun === "webhook" && operand === undefined) return webhookCandidate(verb, flags)
  if (noun === "destination") return destinationCandidate(verb, operand, flags)
  if (noun === "extractors" && Object.keys(flags).length === 0) {
    if (verb === "use" && operand !== undefined) return { _tag: "UseYtDlpRelease", choice: operand }
    if (verb === "status" && operand === undefined) return { _tag: "ExtractorsStatus" }
  }
  return null
}

const webhookCandidate = (verb: string | undefined, flags: Record<string, string>): unknown => {
  const allowed: Record<string, ReadonlyArray<string>> = {
    set: ["project", "url", "events"],
    remove: ["project"],
    deliveries: ["project", "limit"]
  }
  const known = verb === undefined ? undefined : allowed[verb]
  if (known === undefined || Object.keys(flags).some((flag) => !known.includes(flag))) return null
  switch (verb) {
    case "set":
      return {
        _tag: "SetWebhook",
        projectId: flags["project"],
        url: flags["url"],
        events: (flags["events"] ?? ALL_WEBHOOK_EVENT_TYPES.join(","))
          .split(",")
          .map((s) => s.trim())
          .filter((s) => s !== "")
      }
    case "remove":
      return { _tag: "RemoveWebhook", projectId: flags["project"] }
    default:
      return { _tag: "ListDeliveries", projectId: flags["project"], limit: Number(flags["limit"] ?? "100") }
  }
}

const destinationCandidate = (verb: string | undefined, operand: string | undefined, flags: Record<string, string>): unknown => {
  const allowed: Record<string, ReadonlyArray<string>> = {
    "add-folder": ["project", "name", "path", "refresh-type", "refresh-url"],
    list: ["project"],
    remove: ["project"]
  }
  const known = verb === undefined ? undefined : allowed[verb]
  if (known === undefined || Object.keys(flags).some((flag) => !known.includes(flag))) return null
  if ((verb === "remove") !== (operand !== undefined)) return null
  switch (verb) {
    case "add-folder":
      return {
        _tag: "AddFolderDestination",
        projectId: flags["project"],
        name: flags["name"],
        path: flags["path"],
        ...(flags["refresh-type"] === undefined ? {} : { refreshType: flags["refresh-type"] }),
        ...(flags["refresh-url"] === undefined ? {} : { refreshUrl: flags["refresh-url"] })
      }
    case "list":
      return { _tag: "ListDestinations", projectId: flags["project"] }
    default:
      return { _tag: "RemoveDestination", projectId: flags["project"], destinationId: operand }
  }
}

const formatIssues = SchemaIssue.makeFormatterStandardSchemaV1()

export const parseAdminCommand = (argv: ReadonlyArray<string>): Effect.Effect<AdminCommand, UsageError> => {
  const raw = candidate(argv)
  if (raw === null) return Effect.fail(new UsageError({ message: USAGE }))
  return Schema.decodeUnknownEffect(AdminCommand)(raw).pipe(
    Effect.mapError((error) => {
      const details = formatIssues(error.issue)
        .issues.map((item) => `${(item.path ?? []).map(String).join(".")}: ${item.message}`)
        .join("; ")
      return new UsageError({ message: `invalid arguments (${details})\n${USAGE}` })
    })
  )
}
