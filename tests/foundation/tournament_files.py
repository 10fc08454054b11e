"""Small tournament files for the foundation tests."""

VALID = """
[tournament]
name = "Tiny"
criterion = "helpfulness"

[[contestants]]
id = "alpha"

[[contestants]]
id = "beta"
label = "Beta model"

[[prompts]]
id = "p1"
text = "Say hello."
responses = { alpha = "Hello!", beta = { file = "beta_p1.txt" } }

[[judges]]
id = "sim"
provider = "simulated"
[judges.simulation]
qualities = { alpha = 100.0, beta = 0.0 }

[ranking]
threshold = "none"
"""
