// Carries out one admin command by appending ProjectCreated, KeyCreated or KeyRevoked through the deciders.
import { KeyEvent, ProjectEvent } from "@mds/shared/domain/account/AccountEvent"
import { KeyDecider } from "@mds/shared/domain/account/KeyDecider"
import { ProjectDecider } from "@mds/shared/domain/account/ProjectDecider"
import { ApiKeyNotFound, ProjectNotFound } from "@mds/shared/domain/DomainErrors"
import { handleCommand } from "@mds/shared/eventstore/CommandHandler"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { keySubject, projectSubject } from "@mds/shared/eventstore/Subjects"
import { KeyId, newId } from "@mds/shared/ids/Ids"
import { displayPrefix, generateSecret, hashSecret, keyIdFromHash, SECRET_PATTERN } from "@mds/shared/keys/ApiKeySecret"
import { Clock, Config, Effect, Option, Redacted, Schema } from "effect"
import type { AdminCommand } from "./AdminCommand.ts"
import { runWebhookCommand } from "./runWebhookCommand.ts"

const isKeyId = Schema.is(KeyId)

/** Returns the one line the command prints: the project id or the new secret (empty for a revocation). */
export const runAdminCommand = Effect.fn("runAdminCommand")(function*(command: AdminCommand) {
  const now = yield* Clock.currentTimeMillis
  switch (command._tag) {
    case "CreateProject": {
      const projectId = newId("prj")
      yield* handleCommand({
        decider: ProjectDecider,
        codec: ProjectEvent,
        subject: projectSubject(projectId),
        command: { _tag: "CreateProject", projectId, name: command.name, now },
        msgId: () => `ProjectCreated:${projectId}`
      })
      return projectId
    }
    case "CreateKey": {
      const store = yield* EventStore
      const project = yield* store.readLast(ProjectEvent, projectSubject(command.projectId))
      if (Option.isNone(project)) return yield* new ProjectNotFound({ projectId: command.projectId })
      const pepper = yield* Config.Redacted("API_KEY_PEPPER")
      const secret = generateSecret(command.environment)
      const hash = hashSecret(Redacted.value(pepper), secret)
      const keyId = keyIdFromHash(hash)
      yield* handleCommand({
        decider: KeyDecider,
        codec: KeyEvent,
        subject: keySubject(keyId),
        command: {
          _tag: "CreateKey",
          keyId,
          projectId: command.projectId,
          name: command.name,
          environment: command.environment,
          scopes: command.scopes,
          hash,
          prefix: displayPrefix(secret),
          now
        },
        msgId: () => `KeyCreated:${keyId}`
      })
      return secret
    }
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
      yield* handleCommand({
        decider: KeyDecider,
        codec: KeyEvent,
        subject: keySubject(keyId),
        command: { _tag: "RevokeKey", keyId, now },
        msgId: () => `KeyRevoked:${keyId}`
      })
      return ""
    }
  }
})
