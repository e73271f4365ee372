// The SQCDP categories' names and letters, the same on every screen that shows them (the KPI screen, the wall).
export default {
  category_safety: "Safety",
  category_quality: "Quality",
  category_cost: "Cost",
  category_delivery: "Delivery",
  category_people: "People",
  letter_safety: "S",
  letter_quality: "Q",
  letter_cost: "C",
  letter_delivery: "D",
  letter_people: "P",
};
