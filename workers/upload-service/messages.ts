import { GUEST_FREE_PLAYS } from "../../shared/rooms";

/**
 * The upload-service's own messages (the catalogue's texts are SONG_MSG in
 * workers/songs/messages.ts). Routes and tests import them from here.
 */
export const MSG = {
  notMultipart: "Send the song as multipart/form-data with a file field.",
  fileRequired: "file is required: send the song as a multipart file field",
  fileEmpty: "file is empty.",
  oneFile: "Send one file per upload.",
  unexpectedFile: (name: string) => `Unexpected file field "${name}": the song goes in "file".`,
  unknownField: (name: string) => `Unrecognized field "${name}".`,
  duplicateField: (name: string) => `Field "${name}" is sent more than once.`,
  nothingToUpdate: "Nothing to update: send at least one field.",
  statusAdminOnly: "Only an admin can change a song's status.",
  deleteForbidden: "Only the owner of this song or an admin can delete it.",
  stillUploading: "A song that is still uploading cannot be taken down.",
  changedMeanwhile: "The song's status changed meanwhile; read it again and retry.",
  cannotReinstate:
    "Only a song that was taken down, and has playable audio, can be verified again.",
  guestOverFreePlays: `Guests hear ${GUEST_FREE_PLAYS} songs free: sign up to keep listening.`,
  badSignature: "This link is invalid or has expired; fetch the playlist again.",
  segmentNotFound: "Segment not found.",
  audioMissing: "The song's audio is missing.",
  streamingNotConfigured: "Song streaming is not configured (ROOT_SECRET).",
  badTranscoderSignature:
    "Invalid or expired transcoder signature (X-Transcoder-Signature over the exact body).",
  reportNotJson: "The report must be a JSON object.",
  needsTranscoder: (label: string) =>
    `${label} files cannot be accepted here: no transcoder is running to convert them to MP3. Upload an MP3 instead.`,
  renditionTooLarge: (mb: number) => `The rendition is too large: at most ${mb} MB.`,
  renditionEmpty: "The rendition is empty.",
  notPostponed: "This song is not waiting for a transcode.",
  mp3KeyMissing: "mp3Key names no stored object.",
  // Stored in song_files.detail, shown to the uploader.
  noFrames: "No MP3 audio frames were found in the file.",
  mostlyJunk: "Most of the file is not MP3 audio.",
  tooFragmented: "The MP3 is broken into too many pieces to stream.",
  postponed: (label: string) =>
    `${label} files play from an MP3 rendition; waiting for the transcoder.`,
  transcoderFailed: "The transcoder could not convert this file.",
  transcoderUnreachable: "The transcoder could not be reached; upload the song again.",
  transcoderTimedOut: "The transcoder did not answer in time; upload the song again.",
  uploadUnfinished: "The upload never finished; upload the song again.",
} as const;
