import { pageMeta } from "~/i18n";
import { HomeScreen } from "~/components/home/HomeScreen";

export const meta = pageMeta("home.title");

export default function Index() {
  return <HomeScreen />;
}
