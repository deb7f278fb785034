/**
 * Engine settings LanceDB reads from the environment, set before its first use.
 *
 * LanceDB 0.31 writes a full-text index partition by building posting-list batches in a task on
 * its CPU pool and handing them to the file writer through a bounded channel with a *blocking*
 * send (`LANCE_FTS_WRITE_QUEUE_SIZE`, default 1). The writer's column flush needs that same pool,
 * which has one thread on a 2-core machine (cores minus 2 reserved for I/O, at least 1). Once a
 * partition's postings are large enough to flush mid-way — here at ~450k rows in one table — the
 * producer parks the only thread, `optimize` never returns and every commit of the table queues
 * behind it (five runs out of five before this setting; upstream later made the send async). A queue
 * that never fills keeps the send from blocking; what it holds is the postings the builder held.
 * A value set by the operator wins.
 */
process.env.LANCE_FTS_WRITE_QUEUE_SIZE ??= String(2 ** 20);
