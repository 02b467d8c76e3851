import { createRoot } from "react-dom/client";
import "uplot/dist/uPlot.min.css";
import "./console.css";
import { Root } from "./Root";

const el = document.getElementById("root");
if (el) createRoot(el).render(<Root />);
