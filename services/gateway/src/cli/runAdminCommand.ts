// Carries out one admin command: accounts through the account commands (the same ones the dashboard uses), webhooks.
import { ApiKeyNotFound, UserNotFound } from "@mds/shared/domain/DomainErrors"
import { KeyId } from "@mds/shared/ids/Ids"
import { generatePassword, MIN_PASSWORD_LENGTH } from "@mds/shared/keys/PasswordHash"
import { hashSecret, keyIdFromHash, SECRET_PATTERN } from "@mds/shared/keys/ApiKeySecret"
import { Config, Effect, Redacted, Schema } from "effect"
import {
  addProjectMember,
  changePassword,
  createKey,
  createProject,
  createUser,
  loadUser,
  revokeKey,
  setProjectQuota,
  setUserProjectLimit
} from "../accounts/AccountCommands.ts"
import { type AdminCommand, parseQuotaBytes, parseQuotaJobs, UsageError } from "./AdminCommand.ts"
import { extractorsStatus, useYtDlpRelease } from "./runExtractorsCommand.ts"
import { runWebhookCommand } from "./runWebhookCommand.ts"
import { runDestinationCommand } from "./runDestinationCommand.ts"

const isKeyId = Schema.is(KeyId)

export interface AdminIo {
  /** Standard input, for --password-stdin. */
  readonly readStdin: Effect.Effect<string>
}

const noStdin: AdminIo = { readStdin: Effect.succeed("") }

/** The password from stdin (its first line), or a generated one; `print` says whether it must be shown. */
const passwordFor = Effect.fn("passwordFor")(function* (fromStdin: boolean, io: AdminIo) {
  if (!fromStdin) return { password: generatePassword(), print: true }
  const password = (yield* io.readStdin).split(/\r?\n/)[0] ?? ""
  if (password.length < MIN_PASSWORD_LENGTH) {
    return yield* new UsageError({ message: `the password must have at least ${MIN_PASSWORD_LENGTH} characters` })
  }
  return { password, print: false }
})

/** Returns the one line the command prints: an id, a secret or a generated password (empty when there is nothing). */
export const runAdminCommand = Effect.fn("runAdminCommand")(function* (command: AdminCommand, io: AdminIo = noStdin) {
  switch (command._tag) {
    case "CreateProject":
      return yield* createProject(command.name, null)
    case "CreateKey": {
      const { secret } = yield* createKey(command)
      return secret
    }
    case "UseYtDlpRelease":
      return yield* useYtDlpRelease(command)
    case "ExtractorsStatus":
      return yield* extractorsStatus(command)
    case "AddFolderDestination":
    case "ListDestinations":
    case "RemoveDestination":
      return yield* runDestinationCommand(command)
    case "SetWebhook":
    case "RemoveWebhook":
    case "ListDeliveries":
      return yield* runWebhookCommand(command)
    case "RevokeKey": {
      let keyId = command.key
      if (SECRET_PATTERN.test(command.key)) {
        const pepper = yield* Config.Redacted("API_KEY_PEPPER")
        keyId = keyIdFromHash(hashSecret(Redacted.value(pepper), command.key))
      } else if (!isKeyId(command.key)) {
        return yield* new ApiKeyNotFound({ keyId: "(neither a secret nor a key id)" })
      }
      yield* revokeKey(keyId, null)
      return ""
    }
    case "SetUserProjectLimit": {
      yield* setUserProjectLimit(command.email, parseQuotaJobs(command.limit))
      return ""
    }
    case "SetQuota": {
      yield* setProjectQuota(command.projectId, {
        ...(command.bytesPerMonth === undefined ? {} : { bytesPerMonth: parseQuotaBytes(command.bytesPerMonth) }),
        ...(command.jobsPerDay === undefined ? {} : { jobsPerDay: parseQuotaJobs(command.jobsPerDay) }),
        ...(command.subscriptions === undefined ? {} : { subscriptions: parseQuotaJobs(command.subscriptions) })
      })
      return ""
    }
    case "AddMember": {
      yield* addProjectMember(command.projectId, command.email)
      return ""
    }
    case "CreateUser": {
      const { password, print } = yield* passwordFor(command.passwordFromStdin, io)
      const userId = yield* createUser(command.email, password)
      return print ? password : userId
    }
    case "SetPassword": {
      if ((yield* loadUser(command.email)).user === null) return yield* new UserNotFound({ email: command.email })
      const { password, print } = yield* passwordFor(command.passwordFromStdin, io)
      yield* changePassword(command.email, password)
      return print ? password : ""
    }
  }
})
