"""An independent reference for the ratings Chatbot Arena publishes: FastChat's `compute_bt` and
`compute_style_control` (fastchat/serve/monitor/rating_systems.py) re-expressed with numpy and scipy's L-BFGS-B,
step for step as FastChat computes them (battles as rows, no pandas): the same preprocessing, loss, gradient,
regularisation, optimiser, tolerance and scale (400 * r + 1000, mixtral-8x7b-instruct-v0.1 at 1114 when present).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit

ELEMENTS = ("sum_assistant_{}_tokens", "header_count_{}", "list_count_{}", "bold_count_{}")
BASELINE, BASELINE_RATING = "mixtral-8x7b-instruct-v0.1", 1114.0


def _models(battles: list[dict[str, Any]]) -> tuple[np.ndarray, list[str]]:
    names: dict[str, int] = {}
    for b in battles:  # pd.factorize over model_a then model_b: first appearance order
        names.setdefault(b["model_a"], len(names))
    for b in battles:
        names.setdefault(b["model_b"], len(names))
    matchups = np.array([[names[b["model_a"]], names[b["model_b"]]] for b in battles])
    return matchups, list(names)


def _outcomes(battles: list[dict[str, Any]]) -> np.ndarray:
    return np.array([{"model_a": 1.0, "model_b": 0.0}.get(b["winner"], 0.5) for b in battles])


def _scale(ratings: np.ndarray, models: list[str]) -> dict[str, float]:
    scaled = ratings * 400.0 + 1000.0
    if BASELINE in models:
        scaled = scaled + BASELINE_RATING - scaled[models.index(BASELINE)]
    return dict(zip(models, scaled.tolist(), strict=True))


def compute_bt(battles: list[dict[str, Any]]) -> dict[str, float]:
    matchups, models = _models(battles)
    outcomes = _outcomes(battles)
    rows = np.column_stack([matchups, (outcomes * 2).astype(int)])
    uniq, counts = np.unique(rows, axis=0, return_counts=True)
    m, y, w = uniq[:, :2], uniq[:, 2] / 2.0, counts.astype(float)
    alpha = math.log(10.0)

    def loss_grad(r: np.ndarray) -> tuple[float, np.ndarray]:
        p = expit(alpha * (r[m[:, 0]] - r[m[:, 1]]))
        loss = -((np.log(p) * y + np.log(1 - p) * (1 - y)) * w).sum()
        g = -alpha * (y - p) * w
        grad = np.zeros_like(r)
        np.add.at(grad, m, g[:, None] * np.array([1.0, -1.0]))
        return loss, grad

    x0 = np.zeros(len(models))
    r = minimize(loss_grad, x0, jac=True, method="L-BFGS-B", options={"maxiter": 100, "gtol": 1e-6})["x"]
    return _scale(r, models)


def style_features(battles: list[dict[str, Any]]) -> np.ndarray:
    def count(md: dict[str, Any], key: str) -> float:
        v = md[key]
        return float(v if isinstance(v, int) else sum(v.values()))

    va = np.array([[count(b["conv_metadata"], e.format("a")) for e in ELEMENTS] for b in battles])
    vb = np.array([[count(b["conv_metadata"], e.format("b")) for e in ELEMENTS] for b in battles])
    diff = (va - vb) / (va + vb + 1.0)
    return (diff - diff.mean(axis=0)) / diff.std(axis=0)


def compute_style_control(
    battles: list[dict[str, Any]], reg: float = 0.5
) -> tuple[dict[str, float], np.ndarray]:
    matchups, models = _models(battles)
    y = _outcomes(battles)
    f = style_features(battles)
    n = len(models)
    alpha = math.log(10.0)

    def loss_grad(params: np.ndarray) -> tuple[float, np.ndarray]:
        r, beta = params[:n], params[n:]
        p = expit(alpha * (r[matchups[:, 0]] - r[matchups[:, 1]]) + f @ beta)
        loss = -(np.log(p) * y + np.log(1 - p) * (1 - y)).sum() + reg / 2.0 * params @ params
        err = y - p
        grad = reg * params
        np.add.at(grad[:n], matchups, (-alpha * err)[:, None] * np.array([1.0, -1.0]))
        grad[n:] -= f.T @ err
        return loss, grad

    x0 = np.zeros(n + f.shape[1])
    params = minimize(loss_grad, x0, jac=True, method="L-BFGS-B", options={"maxiter": 100, "gtol": 1e-6})["x"]
    return _scale(params[:n], models), params[n:]
