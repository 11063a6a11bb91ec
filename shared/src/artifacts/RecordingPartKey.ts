// Extension: where a live recording's kept parts live in the artifact store, under the job's key (the extractor puts
// them while it records; the job's next run joins them should the recording's worker be lost; the run that ends the
// job, or the expiry sweeper once the job is gone, removes them).

/** The store key of a recording's part `index` (0-based, in recording order). */
export const recordingPartKey = (projectId: string, jobId: string, index: number): string =>
  `jobs/${projectId}/${jobId}/recording/${String(index).padStart(5, "0")}.ts`

/** The keys of a recording's first `chunks` parts. */
export const recordingPartKeys = (projectId: string, jobId: string, chunks: number): ReadonlyArray<string> =>
  Array.from({ length: chunks }, (_, index) => recordingPartKey(projectId, jobId, index))
