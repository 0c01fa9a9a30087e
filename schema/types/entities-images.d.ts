/**
 * The record and the page of GET /edw/api/entities-images/, generated from schema/page.schema.json
 * (and what they reference) by json-schema-to-typescript. Do not edit: change the schema, then run
 * `node ci/schema_types.mjs`. A test fails while this file differs from what the schema gives (docs/typescript.md).
 * Types only: patterns, bounds and cross-field rules are checked by the schema and the contract suite.
 */

/**
 * Absolute http(s) URL made of URI characters only (Django percent-encodes the rest), its path at most 16 segments (a bound regex-driven generators need), or null.
 */
export type Link = string | null;

/**
 * Body of a 200 response of GET /edw/api/entities-images/ (spec 2.2): DRF LimitOffsetPagination's envelope. Link arithmetic, ordering and page length are checked by the contract suite, not here.
 */
export interface PageOfImageRecords {
  /**
   * Total number of records matching the request (not the page length).
   */
  count: number;
  /**
   * Address of the following page, or null on the last page.
   */
  next: Link;
  /**
   * Address of the preceding page, or null on the first page.
   */
  previous: Link;
  /**
   * The records of this page.
   */
  results: ImageRecord[];
}
/**
 * One item of GET /edw/api/entities-images/ (spec 2.1). Exactly these 15 keys; cross-field rules (image ends with the percent-encoded file, mime_type follows the extension) are checked by the contract suite, not here.
 */
export interface ImageRecord {
  /**
   * Primary key of the image record (an auto-increment id, so at least 1).
   */
  id: number;
  /**
   * Absolute http(s) URL of the file: {scheme}://{host}[/prefix of at most 8 segments]/media/filer_public/<2 hex>/<2 hex>/<uuid>/<name>, the name percent-encoded; the two hex folders are the first four hex digits of the uuid, a relation the pattern leaves to the contract suite's file_layout rule (a back-reference would keep regex-driven generators from producing values). The host is what Django accepts; 2048 characters is a sanity bound.
   */
  image: string;
  /**
   * Storage-relative path, as django-filer's 'randomized' generator builds it: filer_public/<2 hex>/<2 hex>/<uuid>/<stored name>, the hex folders being the uuid's first four hex digits (checked by the contract suite's file_layout rule, not by the pattern, which regex-driven generators must be able to produce from). At most 1024 characters (filer 3.x column; 255 in filer 2.x).
   */
  file: string;
  /**
   * File name as uploaded, possibly path-like; filer's column is nullable and the serializer returns it raw.
   */
  original_filename: string | null;
  /**
   * Size of the file in bytes (0 when unknown).
   */
  file_size: number;
  /**
   * Empty string when unset.
   */
  author: string;
  /**
   * Empty string when unset.
   */
  name: string;
  /**
   * Empty string when unset.
   */
  default_caption: string;
  /**
   * Empty string when unset.
   */
  alt: string;
  /**
   * Empty string when unset.
   */
  description: string;
  /**
   * "x,y", or empty string when unset.
   */
  subject_location: string;
  /**
   * Image media type guessed from the stored name's extension (image/png, image/jpeg, ...), or the empty string when the extension is unknown to the server.
   */
  mime_type: string;
  /**
   * Position of the image; a SmallIntegerField, so a signed 16-bit value.
   */
  order: number;
  /**
   * Nullable IntegerField (django-edw-fluent): null, 0 for the thumbnail, or a block item id; a signed 32-bit value.
   */
  key: number | null;
  /**
   * Primary key of the owning entity; many records may share it.
   */
  entity: number;
}
