import { serviceApp } from "../lib/service";

export const userService = serviceApp("user-service");
