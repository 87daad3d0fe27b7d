// The demo tracks: made-up names; tempo, key and scale differ per track so they sound distinct.

/**
 * The tracks. Names are made up; tempo, key and scale differ per track so they sound
 * distinct, and the seed picks the chord progression, the bassline and the melody.
 * `melodyScale` lets a lead use a subset (funk: pentatonic over dorian chords).
 */
export const DEMO_TRACKS = [
  { slug: "neon-harbor", trackName: "Neon Harbor", artistName: "The Night Shift", albumName: "Harbor Lights", genre: "House", year: 2024, bpm: 124, key: "A", scale: "dorian", bars: 14, seed: 11 },
  { slug: "chrome-sunset", trackName: "Chrome Sunset", artistName: "Vector Palms", albumName: "Outrun Tapes", genre: "Synthwave", year: 2023, bpm: 100, key: "D", scale: "minor", bars: 12, seed: 23 },
  { slug: "rainy-window", trackName: "Rainy Window", artistName: "Paper Lanterns", albumName: "Late Study", genre: "Lo-fi", year: 2024, bpm: 80, key: "Eb", scale: "major", bars: 10, seed: 37 },
  { slug: "concrete-pulse", trackName: "Concrete Pulse", artistName: "Unit 47", albumName: "Warehouse Hours", genre: "Techno", year: 2022, bpm: 132, key: "F", scale: "phrygian", bars: 16, seed: 41 },
  { slug: "velvet-mirrorball", trackName: "Velvet Mirrorball", artistName: "The Glitter Union", albumName: "Saturday Suite", genre: "Disco", year: 2021, bpm: 116, key: "Bb", scale: "mixolydian", bars: 14, seed: 53 },
  { slug: "tidal-drift", trackName: "Tidal Drift", artistName: "Ocean Lumen", albumName: "Slow Currents", genre: "Ambient", year: 2023, bpm: 68, key: "E", scale: "lydian", bars: 8, seed: 67 },
  { slug: "afterburner", trackName: "Afterburner", artistName: "Kinetic Theory", albumName: "Velocity Lines", genre: "Drum & Bass", year: 2024, bpm: 172, key: "C#", scale: "harmonicMinor", bars: 20, seed: 79 },
  { slug: "brass-pocket", trackName: "Brass Pocket", artistName: "The Loose Change Band", albumName: "Sunday Strut", genre: "Funk", year: 2022, bpm: 104, key: "G", scale: "dorian", melodyScale: "minorPentatonic", bars: 12, seed: 97 },
];
