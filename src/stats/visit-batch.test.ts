import assert from 'node:assert/strict'
import { once } from 'node:events'
import { describe, test } from 'node:test'
import { MessageChannel } from 'node:worker_threads'
import { classifyBatch, encodeVisits, RAW_VISIT, VisitBatchBuilder, type EncodedVisits, type Visit } from './visit-batch.js'
import { visitsOf } from './visit-columns.js'

const visit = (at: number): Visit => ({
  linkId: 'lnk_a',
  at,
  qr: false,
  head: false,
  ip: '192.0.2.1',
  userAgent: 'curl/8',
  referer: undefined,
  country: undefined,
})
const times = (batch: EncodedVisits) => [...batch.numbers.filter((_, i) => i % RAW_VISIT.width === RAW_VISIT.index.at)]
const fill = (builder: VisitBatchBuilder, from: number, count: number) => {
  for (let i = 0; i < count; i++) builder.add(visit(from + i))
  return builder.take()
}

describe("a batch's numbers: shared memory, handed over without a copy", () => {
  test('a batch is a view of shared memory, and a port receives that memory itself', async () => {
    // More visits than the builder's first array holds: the grown one is shared too.
    const batch = fill(new VisitBatchBuilder(), 1, 300)
    assert.ok(batch.numbers.buffer instanceof SharedArrayBuffer)
    assert.deepEqual(
      times(batch),
      Array.from({ length: 300 }, (_, i) => 1 + i),
    )
    const { port1, port2 } = new MessageChannel()
    try {
      port1.postMessage({ numbers: batch.numbers })
      const [received] = (await once(port2, 'message')) as [{ numbers: Float64Array }]
      assert.equal(received.numbers.length, batch.numbers.length)
      received.numbers[RAW_VISIT.index.at] = -1
      assert.equal(batch.numbers[RAW_VISIT.index.at], -1, 'one memory on both ends, not a copy')
    } finally {
      port1.close()
    }
  })

  test('a batch keeps its numbers until it is recycled; then the batch after next reuses its memory', () => {
    const builder = new VisitBatchBuilder()
    const first = fill(builder, 100, 3)
    const second = fill(builder, 200, 3)
    assert.notEqual(second.numbers.buffer, first.numbers.buffer, 'not written meanwhile: the first is not recycled')
    assert.deepEqual(times(first), [100, 101, 102])
    builder.recycle(first)
    // The third batch was already being filled when the first came back: the fourth gets its memory.
    const third = fill(builder, 300, 3)
    const fourth = fill(builder, 400, 2)
    assert.equal(fourth.numbers.buffer, first.numbers.buffer)
    assert.deepEqual(times(fourth), [400, 401])
    assert.deepEqual(
      [times(second), times(third)],
      [
        [200, 201, 202],
        [300, 301, 302],
      ],
    )
    // A batch given back once more, while its memory is being filled again, changes nothing.
    builder.recycle(fourth)
    const fifth = fill(builder, 500, 1)
    builder.recycle(fourth)
    const sixth = fill(builder, 600, 1)
    const seventh = fill(builder, 700, 1)
    assert.notEqual(seventh.numbers.buffer, sixth.numbers.buffer)
    assert.deepEqual([times(fifth), times(sixth), times(seventh)], [[500], [600], [700]])
  })
})

test('classified batches each keep their own visits, though each is written in the same array first', () => {
  const classified = (from: number, count: number) => classifyBatch(encodeVisits(Array.from({ length: count }, (_, i) => visit(from + i))), () => 'salt')
  const at = (batch: ReturnType<typeof classifyBatch>) => [...visitsOf(batch)].map((v) => v.at)
  const first = classified(1_000, 5)
  const second = classified(2_000, 3)
  const third = classified(3_000, 7)
  assert.deepEqual(
    [at(first), at(second), at(third)],
    [
      [1_000, 1_001, 1_002, 1_003, 1_004],
      [2_000, 2_001, 2_002],
      [3_000, 3_001, 3_002, 3_003, 3_004, 3_005, 3_006],
    ],
  )
})
