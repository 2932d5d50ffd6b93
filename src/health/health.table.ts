/** One row per background job that one instance at a time runs (migration 0025): its holder and until when. */
export interface HealthLeasesTable {
  name: string
  holder: string
  expires_at: number
}
