// The tablet's IndexedDB: what it keeps for the shift and its write queue, so it opens and works with no
// network and a closed tab loses nothing. Three object stores: `kept` (named records: the person, the chosen
// board, each board's data as last read, the drafts of checklists and audits), `queue` (the writes waiting to
// be sent, keyed by an increasing seq so they go in the order they were made) and `results` (the answers of
// sent writes that later ones refer to: an audit started offline, a photo uploaded). A promise resolves only
// once its transaction has committed, so what the screen calls saved is on disk.

const NAME = "obeya-tablet";
const VERSION = 1;
export const KEPT = "kept";
export const QUEUE = "queue";
export const RESULTS = "results";
/** The `kept` record of when the tablet last heard from the server. */
export const LAST_SYNC = "lastSync";

/** @type {Promise<IDBDatabase> | null} */
let opening = null;

/** The database, opened once per page. */
export function database() {
  if (!opening) {
    opening = new Promise((resolve, reject) => {
      const request = indexedDB.open(NAME, VERSION);
      request.onupgradeneeded = () => {
        const db = request.result;
        db.createObjectStore(KEPT);
        db.createObjectStore(QUEUE, { keyPath: "seq", autoIncrement: true });
        db.createObjectStore(RESULTS);
      };
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    });
  }
  return opening;
}

/**
 * Run `work(stores)` in one transaction over `names`; resolves with what `work` returned once it committed.
 * @template T
 * @param {string[]} names
 * @param {IDBTransactionMode} mode
 * @param {(stores: Record<string, IDBObjectStore>) => T} work
 * @returns {Promise<T>}
 */
export async function transact(names, mode, work) {
  const db = await database();
  return new Promise((resolve, reject) => {
    const tx = db.transaction(names, mode);
    const stores = Object.fromEntries(names.map((name) => [name, tx.objectStore(name)]));
    let value;
    try {
      value = work(stores);
    } catch (error) {
      tx.abort();
      reject(error);
      return;
    }
    tx.oncomplete = () => resolve(value);
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error);
  });
}

/** A request's result, once it succeeded. */
export function result(request) {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

/** The record `key` of `kept` (undefined when there is none). */
export async function read(key) {
  const db = await database();
  return result(db.transaction(KEPT).objectStore(KEPT).get(key));
}

/** Keep `value` under `key`; resolves once committed. */
export function keep(key, value) {
  return transact([KEPT], "readwrite", (stores) => { stores[KEPT].put(value, key); });
}

/** Drop the `kept` records whose key starts with `prefix`, except those in `still`. */
export function forget(prefix, still) {
  return transact([KEPT], "readwrite", (stores) => {
    const request = stores[KEPT].openKeyCursor(IDBKeyRange.bound(prefix, `${prefix}\uffff`));
    request.onsuccess = () => {
      const cursor = request.result;
      if (!cursor) return;
      if (!still.has(cursor.key)) stores[KEPT].delete(cursor.primaryKey);
      cursor.continue();
    };
  });
}

/** Every record of `store`, in key order. */
export async function all(store) {
  const db = await database();
  return result(db.transaction(store).objectStore(store).getAll());
}
