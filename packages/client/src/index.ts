// The public surface of @mds/client: the client, its errors and the API's types.
export type { Health, Job, JobAccepted, Media, Platform } from "@mds/shared/api/Responses"
export type { Usage } from "@mds/shared/api/Usage"
export type { WebhookDelivery, WebhookRedelivery } from "@mds/shared/api/WebhookDeliveries"
export { MdsApiError, MdsConnectionError, MdsProtocolError } from "./MdsApiError.ts"
export { type DownloadSource, MdsClient, type MdsClientOptions, type UsageRange, type WaitOptions } from "./MdsClient.ts"
export { MAX_POLL_MS, MIN_POLL_MS, nextPollDelay } from "./PollingSchedule.ts"
export { defaultRetryPolicy, type RetryPolicy } from "./RetryPolicy.ts"
