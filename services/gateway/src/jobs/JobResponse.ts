// The /v1 shape of a job: built in shared/src/api/JobResponse.ts, which the webhook dispatcher uses as well.
export { type ApiJob, type ApiJobStatus, toJobResponse } from "@mds/shared/api/JobResponse"
