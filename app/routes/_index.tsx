export default function Index() {
  return <main className="p-8"><h1 className="text-2xl font-bold">Hangout</h1></main>;
}
