import {
  data,
  redirect,
  type ActionFunctionArgs,
  type LoaderFunctionArgs,
} from "@remix-run/cloudflare";
import { pageMeta } from "~/i18n";
import { callApi } from "~/lib/api.server";
import { formString, type FormState } from "~/lib/forms";
import { ROOM_GENRES } from "~/lib/discover";
import { DJ_TYPES, ROOM_DESIGNS, ROOM_SERVICE, type RoomDto } from "~/lib/rooms";
import { requireUser } from "~/lib/session.server";
import { NewRoomScreen } from "~/components/room/NewRoomScreen";

export const meta = pageMeta("roomNew.title");

export async function loader(args: LoaderFunctionArgs) {
  await requireUser(args);
  return null;
}

export async function action(args: ActionFunctionArgs) {
  const { token } = await requireUser(args);
  const form = await args.request.formData();
  const values = {
    name: formString(form, "name").trim(),
    description: formString(form, "description").trim(),
    design: formString(form, "design"),
    numberOfDjs: formString(form, "numberOfDjs"),
    djType: formString(form, "djType"),
    genre: formString(form, "genre"),
  };
  if (!values.name)
    return data<FormState>(
      { fieldErrors: { name: "roomNew.nameRequired" }, values },
      { status: 400 },
    );
  const res = await callApi<RoomDto>(args, `${ROOM_SERVICE}/rooms/infrastructure`, {
    method: "POST",
    token,
    json: {
      name: values.name,
      ...(values.description ? { description: values.description } : {}),
      design: (ROOM_DESIGNS as readonly string[]).includes(values.design) ? values.design : "CLUB",
      numberOfDjs: Math.min(10, Math.max(1, Number(values.numberOfDjs) || 5)),
      djType: (DJ_TYPES as readonly string[]).includes(values.djType) ? values.djType : "EVERYONE",
      ...((ROOM_GENRES as readonly string[]).includes(values.genre) ? { genre: values.genre } : {}),
    },
  });
  if (!res.ok) return data<FormState>({ error: res, values }, { status: res.status });
  return redirect(`/rooms/${res.data.slug}`);
}

export default function NewRoom() {
  return <NewRoomScreen />;
}

export { RouteErrorBoundary as ErrorBoundary } from "~/components/ErrorPage";
