import type { action } from "~/routes/rooms.new";
import { Form, useActionData } from "@remix-run/react";
import { useState } from "react";
import {
  Alert,
  Card,
  Field,
  Select,
  SubmitButton,
  TextArea,
  useFocusFirstError,
  PageTitle,
} from "~/components/ui";
import { useT } from "~/i18n";
import { ROOM_GENRES } from "~/lib/discover";
import { DJ_TYPES, paletteOf, ROOM_DESIGNS, type RoomDesign } from "~/lib/rooms";

export function NewRoomScreen() {
  const t = useT();
  const result = useActionData<typeof action>();
  useFocusFirstError(result);
  const v = result?.values ?? {};
  const [design, setDesign] = useState<RoomDesign>((v.design as RoomDesign) || "CLUB");
  return (
    <div className="mx-auto max-w-3xl px-4 py-8 sm:px-6">
      <Card>
        <PageTitle size="card">{t("roomNew.heading")}</PageTitle>
        <p className="mt-2 text-ink-200">{t("roomNew.lede")}</p>
        <Form method="post" className="mt-6 space-y-5" noValidate>
          <Alert error={result?.error} />
          <Field
            label={t("roomNew.name")}
            name="name"
            required
            maxLength={100}
            defaultValue={v.name}
            error={result?.fieldErrors?.name && t(result.fieldErrors.name)}
          />
          <TextArea
            label={t("roomNew.description")}
            name="description"
            maxLength={2000}
            rows={3}
            defaultValue={v.description}
          />
          <fieldset>
            <legend className="mb-2 block text-sm font-medium text-ink-100">
              {t("roomNew.design")}
            </legend>
            <div className="grid grid-cols-2 gap-3 sm:grid-cols-4">
              {ROOM_DESIGNS.map((d) => {
                const p = paletteOf(d);
                const on = d === design;
                return (
                  <label
                    key={d}
                    className="relative flex h-20 cursor-pointer items-end rounded-2xl border-2 p-2.5 text-sm font-bold text-white transition focus-within:outline focus-within:outline-3 focus-within:outline-focus"
                    style={{
                      background: p.backdrop,
                      borderColor: on ? p.accent : "transparent",
                      boxShadow: on ? `0 0 18px -4px ${p.accent}` : undefined,
                    }}
                  >
                    <input
                      type="radio"
                      name="design"
                      value={d}
                      checked={on}
                      onChange={() => setDesign(d)}
                      className="sr-only"
                      data-testid={`design-${d}`}
                    />
                    <span className="rounded bg-black/45 px-1.5 py-0.5">{t(`design.${d}`)}</span>
                  </label>
                );
              })}
            </div>
          </fieldset>
          <div className="grid gap-5 sm:grid-cols-2">
            <Select
              label={t("roomNew.seats")}
              name="numberOfDjs"
              defaultValue={v.numberOfDjs || "5"}
            >
              {Array.from({ length: 10 }, (_, i) => (
                <option key={i} value={i + 1}>
                  {i + 1}
                </option>
              ))}
            </Select>
            <Select
              label={t("roomNew.genre")}
              name="genre"
              defaultValue={v.genre || ""}
              data-testid="room-new-genre"
            >
              <option value="">{t("roomNew.genreNone")}</option>
              {ROOM_GENRES.map((g) => (
                <option key={g} value={g}>
                  {t(`genre.${g}`)}
                </option>
              ))}
            </Select>
            <Select label={t("roomNew.djType")} name="djType" defaultValue={v.djType || "EVERYONE"}>
              {DJ_TYPES.map((d) => (
                <option key={d} value={d}>
                  {t(`djType.${d}`)}
                </option>
              ))}
            </Select>
          </div>
          <SubmitButton label="roomNew.submit" pendingLabel="roomNew.pending" className="w-full" />
        </Form>
      </Card>
    </div>
  );
}
